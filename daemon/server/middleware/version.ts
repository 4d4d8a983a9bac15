// Versions at the edge: `/vX.Y/...` is parsed here, refused when out of range, stripped from the path.
import { InvalidParameterError } from '../../api/errors';
import {
  compareVersions,
  maxApiVersion,
  minApiVersion,
  parseApiVersion,
  type ApiVersion,
} from '../../api/versions';

export interface VersionedPath {
  version: ApiVersion;
  path: string;
  /** Set when the prefix was present but unusable; the answer is then this error. */
  error?: InvalidParameterError;
}

export function splitVersion(rawPath: string): VersionedPath {
  const m = /^\/v([^/]+)(\/.*)?$/.exec(rawPath);
  if (!m || !/^\d/.test(m[1])) return { version: maxApiVersion, path: rawPath };
  const path = m[2] ?? '/';
  const version = parseApiVersion(m[1]);
  if (!version) {
    return { version: maxApiVersion, path, error: new InvalidParameterError(`invalid API version: ${m[1]}`) };
  }
  if (compareVersions(version, minApiVersion) < 0) {
    return {
      version,
      path,
      error: new InvalidParameterError(
        `client version ${version.text} is too old. Minimum supported API version is ${minApiVersion.text}, please upgrade your client to a newer version`,
      ),
    };
  }
  if (compareVersions(version, maxApiVersion) > 0) {
    return {
      version,
      path,
      error: new InvalidParameterError(
        `client version ${version.text} is too new. Maximum supported API version is ${maxApiVersion.text}`,
      ),
    };
  }
  return { version, path };
}
