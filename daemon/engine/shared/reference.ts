// Docker image references: the grammar of distribution/reference and Docker's normalisation
// (`busybox` = `docker.io/library/busybox:latest`), with Docker's error messages.
import { InvalidParameterError } from '../../api/errors';

export const DEFAULT_DOMAIN = 'docker.io';
export const LEGACY_DEFAULT_DOMAIN = 'index.docker.io';
export const OFFICIAL_REPO_PREFIX = 'library/';
export const DEFAULT_TAG = 'latest';
/** Where docker.io's Registry API is actually served. */
export const DEFAULT_REGISTRY_HOST = 'registry-1.docker.io';
const NAME_TOTAL_LENGTH_MAX = 255;

export interface Reference {
  /** Registry host, with port when given: `docker.io`, `localhost:5000`. */
  domain: string;
  /** Repository path inside the registry: `library/busybox`. */
  path: string;
  tag?: string;
  digest?: string;
}

const alphaNumeric = '[a-z0-9]+';
// distribution writes `[-]*`; an empty separator is absorbed by alphaNumeric anyway, and
// requiring one keeps this backtracking regex linear (Go's RE2 is, JavaScript's is not).
const separator = '(?:[._]|__|-+)';
const nameComponent = `${alphaNumeric}(?:${separator}${alphaNumeric})*`;
const domainComponent = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const ipv6 = '\\[(?:[a-fA-F0-9:]+)\\]';
const domain = `(?:${domainComponent}(?:\\.${domainComponent})*|${ipv6})(?::[0-9]+)?`;
const tag = '[\\w][\\w.-]{0,127}';
const digest = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const name = `(?:${domain}\\/)?${nameComponent}(?:\\/${nameComponent})*`;
const referencePattern = new RegExp(`^(${name})(?::(${tag}))?(?:@(${digest}))?$`);
const tagPattern = new RegExp(`^${tag}$`);
const identifierPattern = /^[a-f0-9]{64}$/;

const invalid = (message: string) => new InvalidParameterError(message);

function validateDigest(value: string): string {
  const [algorithm, hex] = value.split(':');
  if (algorithm === 'sha256' && hex.length !== 64) throw invalid('invalid checksum digest length');
  if (algorithm === 'sha512' && hex.length !== 128) throw invalid('invalid checksum digest length');
  if (algorithm !== 'sha256' && algorithm !== 'sha512') throw invalid('unsupported digest algorithm');
  if (!/^[a-f0-9]+$/.test(hex)) throw invalid('invalid checksum digest format');
  return value;
}

function splitDockerDomain(input: string): { domain: string; path: string } {
  const slash = input.indexOf('/');
  let host: string;
  let rest: string;
  if (slash === -1 || (!/[.:]/.test(input.slice(0, slash)) && input.slice(0, slash) !== 'localhost')) {
    host = DEFAULT_DOMAIN;
    rest = input;
  } else {
    host = input.slice(0, slash);
    rest = input.slice(slash + 1);
  }
  if (host === LEGACY_DEFAULT_DOMAIN) host = DEFAULT_DOMAIN;
  if (host === DEFAULT_DOMAIN && !rest.includes('/')) rest = OFFICIAL_REPO_PREFIX + rest;
  return { domain: host, path: rest };
}

/** Parses a fully qualified reference (`domain/path[:tag][@digest]`) without normalising it. */
function parseQualified(value: string): Reference {
  const match = referencePattern.exec(value);
  if (!match) {
    if (value === '') throw invalid('repository name must have at least one component');
    if (referencePattern.test(value.toLowerCase())) {
      throw invalid('invalid reference format: repository name must be lowercase');
    }
    throw invalid('invalid reference format');
  }
  if (match[1].length > NAME_TOTAL_LENGTH_MAX) {
    throw invalid(`repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`);
  }
  const fullName = match[1];
  const slash = fullName.indexOf('/');
  const ref: Reference = { domain: fullName.slice(0, slash), path: fullName.slice(slash + 1) };
  if (match[2]) ref.tag = match[2];
  if (match[3]) ref.digest = validateDigest(match[3]);
  return ref;
}

/**
 * Parses a reference as the docker CLI and engine accept it and normalises it:
 * `busybox` → docker.io/library/busybox, `index.docker.io/x` → docker.io/library/x.
 * No tag is added; see `withDefaultTag`.
 */
export function parseReference(value: string): Reference {
  if (identifierPattern.test(value)) {
    throw invalid(`invalid repository name (${value}), cannot specify 64-byte hexadecimal strings`);
  }
  const { domain: host, path } = splitDockerDomain(value);
  const colon = path.indexOf(':');
  const at = path.indexOf('@');
  const end = Math.min(colon === -1 ? path.length : colon, at === -1 ? path.length : at);
  const repository = path.slice(0, end);
  if (repository.toLowerCase() !== repository) {
    throw invalid('invalid reference format: repository name must be lowercase');
  }
  return parseQualified(`${host}/${path}`);
}

export function validateTag(value: string): string {
  if (!tagPattern.test(value)) throw invalid(`invalid tag format`);
  return value;
}

/** `latest` when the reference has neither tag nor digest (distribution's TagNameOnly). */
export function withDefaultTag(ref: Reference): Reference {
  return ref.tag || ref.digest ? ref : { ...ref, tag: DEFAULT_TAG };
}

export function withTag(ref: Reference, value: string): Reference {
  return { domain: ref.domain, path: ref.path, tag: validateTag(value) };
}

export function withDigest(ref: Reference, value: string): Reference {
  return { domain: ref.domain, path: ref.path, digest: validateDigest(value) };
}

/**
 * The engine's `fromImage` + `tag` pair (POST /images/create, push): the tag may be a digest, and
 * a tag in `tag` overrides one in the name, as dockerd does.
 */
export function parseImageAndTag(image: string, tagOrDigest?: string): Reference {
  const ref = parseReference(image);
  if (!tagOrDigest) return ref;
  if (tagOrDigest.includes(':') && /^[A-Za-z][A-Za-z0-9+._-]*:/.test(tagOrDigest)) {
    return withDigest(ref, tagOrDigest);
  }
  return withTag(ref, tagOrDigest);
}

/** `docker.io/library/busybox` */
export function repositoryName(ref: Reference): string {
  return `${ref.domain}/${ref.path}`;
}

/** The full canonical string: `docker.io/library/busybox:latest`, `host:5000/a@sha256:…`. */
export function referenceString(ref: Reference): string {
  return `${repositoryName(ref)}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** The short form users type and Docker displays: `busybox`, `user/app`, `localhost:5000/x`. */
export function familiarName(ref: Reference): string {
  if (ref.domain !== DEFAULT_DOMAIN) return repositoryName(ref);
  return ref.path.startsWith(OFFICIAL_REPO_PREFIX) && ref.path.split('/').length === 2
    ? ref.path.slice(OFFICIAL_REPO_PREFIX.length)
    : ref.path;
}

/** `busybox:latest`, `localhost:5000/x@sha256:…` (Docker's RepoTags / RepoDigests form). */
export function familiarString(ref: Reference): string {
  return `${familiarName(ref)}${ref.tag ? `:${ref.tag}` : ''}${ref.digest ? `@${ref.digest}` : ''}`;
}

/** The host to speak the Registry API to for a reference's domain. */
export function registryHost(domainName: string): string {
  return domainName === DEFAULT_DOMAIN ? DEFAULT_REGISTRY_HOST : domainName;
}
