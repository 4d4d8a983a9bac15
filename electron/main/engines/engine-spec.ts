// What the user may add as an engine, checked before anything is stored or dialled: a unix
// socket, tcp:// (TLS client certificates by file path) or ssh://[user@]host[:port]. Each refusal
// names the field and the problem; the gateway answers it as a 400.
import { accessSync, constants } from 'node:fs';
import { isAbsolute } from 'node:path';
import type { AddedEngineKind } from '../../../daemon/api/desktop-types';

/** A stored engine: the summary the renderer sees plus the TLS file paths it never sees. */
export interface EngineConfig {
  id: string;
  name: string;
  kind: AddedEngineKind;
  endpoint: string;
  tls?: { ca?: string; cert?: string; key?: string };
}

export class EngineSpecError extends Error {}

const NAME_MAX = 64;
// A host or user that starts with "-" would be read by ssh as an option.
const SSH_PART = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
const TCP_HOST = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9][A-Za-z0-9.-]*)$/;

export function parseEngineSpec(body: unknown, id: string): EngineConfig {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new EngineSpecError('the engine must be a JSON object {name, endpoint, tls?}');
  const b = body as Record<string, unknown>;
  const name = typeof b.name === 'string' ? b.name.trim() : '';
  if (!name) throw new EngineSpecError('name is required');
  if (name.length > NAME_MAX) throw new EngineSpecError(`name is longer than ${NAME_MAX} characters`);
  if (typeof b.endpoint !== 'string' || !b.endpoint.trim())
    throw new EngineSpecError('endpoint is required (unix:///path, tcp://host:port or ssh://user@host)');
  const endpoint = b.endpoint.trim();
  const kind = kindOf(endpoint);
  const tls = parseTls(b.tls, kind);
  return { id, name, kind, endpoint, ...(tls ? { tls } : {}) };
}

function kindOf(endpoint: string): AddedEngineKind {
  const scheme = /^([a-z]+):\/\//.exec(endpoint)?.[1];
  if (scheme === 'unix') {
    const path = endpoint.slice('unix://'.length);
    if (!isAbsolute(path))
      throw new EngineSpecError(`endpoint ${endpoint}: the socket path must be absolute`);
    return 'unix';
  }
  if (scheme === 'tcp') {
    const m = /^tcp:\/\/(.+):(\d+)$/.exec(endpoint);
    if (!m || !TCP_HOST.test(m[1]))
      throw new EngineSpecError(`endpoint ${endpoint}: expected tcp://host:port`);
    checkPort(endpoint, m[2]);
    return 'tcp';
  }
  if (scheme === 'ssh') {
    const m = /^ssh:\/\/(?:([^@/]+)@)?([^:/]+)(?::(\d+))?\/?$/.exec(endpoint);
    if (!m || (m[1] !== undefined && !SSH_PART.test(m[1])) || !SSH_PART.test(m[2]))
      throw new EngineSpecError(`endpoint ${endpoint}: expected ssh://[user@]host[:port]`);
    if (m[3]) checkPort(endpoint, m[3]);
    return 'ssh';
  }
  throw new EngineSpecError(`endpoint ${endpoint}: the scheme must be unix://, tcp:// or ssh://`);
}

function checkPort(endpoint: string, port: string): void {
  const n = Number(port);
  if (!(n >= 1 && n <= 65535))
    throw new EngineSpecError(`endpoint ${endpoint}: port ${port} is out of range`);
}

function parseTls(value: unknown, kind: AddedEngineKind): EngineConfig['tls'] {
  if (value === undefined || value === null) return undefined;
  if (kind !== 'tcp') throw new EngineSpecError('tls applies only to tcp:// endpoints');
  if (typeof value !== 'object' || Array.isArray(value))
    throw new EngineSpecError('tls must be an object {ca?, cert?, key?} of file paths');
  const out: Record<string, string> = {};
  for (const [field, path] of Object.entries(value as Record<string, unknown>)) {
    if (!['ca', 'cert', 'key'].includes(field))
      throw new EngineSpecError(`tls.${field} is not a known field`);
    if (path === undefined || path === '') continue;
    if (typeof path !== 'string' || !isAbsolute(path))
      throw new EngineSpecError(`tls.${field} must be an absolute file path`);
    try {
      accessSync(path, constants.R_OK);
    } catch {
      throw new EngineSpecError(`tls.${field}: cannot read ${path}`);
    }
    out[field] = path;
  }
  if (!out.cert !== !out.key) throw new EngineSpecError('tls.cert and tls.key go together');
  return Object.keys(out).length ? out : undefined;
}
