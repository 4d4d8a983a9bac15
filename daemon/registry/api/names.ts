// Repository names and tags as the spec defines them.
import { RegistryError } from './error-codes';

const component = /^[a-z0-9]+(?:[._-][a-z0-9]+)*$/;
const tagPattern = /^[\w][\w.-]{0,127}$/;

export function isRepositoryName(name: string): boolean {
  return name.length > 0 && name.length < 256 && name.split('/').every((c) => component.test(c));
}

export function checkRepositoryName(name: string): string {
  if (!isRepositoryName(name))
    throw new RegistryError('NAME_INVALID', `invalid repository name: ${name}`, { name });
  return name;
}

export function isTag(tag: string): boolean {
  return tagPattern.test(tag);
}
