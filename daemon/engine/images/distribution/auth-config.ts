// Credentials as the engine receives them in X-Registry-Auth (a base64 JSON AuthConfig).
import { InvalidParameterError } from '../../../api/errors';

export interface AuthConfig {
  username?: string;
  password?: string;
  /** base64 of `username:password`, as in ~/.docker/config.json. */
  auth?: string;
  email?: string;
  serveraddress?: string;
  /** A refresh token from a previous login: exchanged for access tokens (OAuth2 refresh grant). */
  identitytoken?: string;
  /** A bearer token to send as is. */
  registrytoken?: string;
}

/** Decodes an X-Registry-Auth header (base64url or base64 JSON); empty means anonymous. */
export function decodeAuthConfig(header: string | undefined): AuthConfig {
  if (!header || header.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(header.trim(), 'base64url').toString('utf8'));
  } catch {
    throw new InvalidParameterError('invalid X-Registry-Auth header: not base64-encoded JSON');
  }
  if (typeof parsed !== 'object' || parsed === null) return {};
  const source = parsed as Record<string, unknown>;
  const config: AuthConfig = {};
  for (const key of [
    'username',
    'password',
    'auth',
    'email',
    'serveraddress',
    'identitytoken',
    'registrytoken',
  ] as const) {
    // Docker's JSON decoding is case-insensitive on field names.
    const found = Object.keys(source).find((k) => k.toLowerCase() === key);
    if (found && typeof source[found] === 'string' && source[found] !== '')
      config[key] = source[found] as string;
  }
  return config;
}

/** Username and password, from the fields or from `auth`. */
export function credentials(config: AuthConfig): { username: string; password: string } | undefined {
  if (config.username && config.password !== undefined) {
    return { username: config.username, password: config.password };
  }
  if (config.auth) {
    const decoded = Buffer.from(config.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon > 0) return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
  }
  return undefined;
}
