// Container names: dockerd's real rule (validContainerNamePattern), which asks for a leading
// letter or digit and at least two characters and allows dots; the spec's shorter pattern
// `/?[a-zA-Z0-9_-]+` is the old documentation of the same rule.
import { InvalidParameterError } from '../../api/errors';

export const CONTAINER_NAME_CHARS = '[a-zA-Z0-9][a-zA-Z0-9_.-]';
const containerNamePattern = new RegExp(`^/?${CONTAINER_NAME_CHARS}+$`);

/** Validates a create `name` and returns it without the optional leading slash. */
export function validateContainerName(name: string): string {
  if (!containerNamePattern.test(name)) {
    throw new InvalidParameterError(
      `Invalid container name (${name}), only ${CONTAINER_NAME_CHARS} are allowed`,
    );
  }
  return name.replace(/^\//, '');
}
