// The registry's configuration: a JSON file given with --config, every field optional.
//
// {
//   "readOnly": false,                 refuse every write with UNSUPPORTED
//   "deleteEnabled": true,             DELETE of blobs and manifests
//   "pageCap": 1000,                   most entries of one catalog or tags/list page
//   "uploads": { "expireSeconds": 604800, "purgeIntervalSeconds": 3600 },
//   "auth": { "htpasswd": { "path": "FILE", "realm": "svc-registry" } }
//       or  { "token": { "htpasswd": "FILE", "service": "svc-registry", "issuer": "svc-registry",
//                        "expirySeconds": 300, "secret": "...",
//                        "access": [{ "account": "*", "name": "*", "actions": ["pull","push","delete"] }] } },
//   "tls": { "certificate": "cert.pem", "key": "key.pem" },
//   "rateLimit": { "requestsPerSecond": 100, "burst": 200 },
//   "idleTimeoutSeconds": 120,         a connection silent this long (a stalled upload) is closed
//   "events": { "log": "events.jsonl", "endpoint": "http://127.0.0.1:9000/events" }
// }
import { readFileSync } from 'node:fs';
import type { AccessRule } from './auth/token-issuer';

export interface RegistryConfig {
  readOnly: boolean;
  deleteEnabled: boolean;
  pageCap: number;
  uploads: { expireSeconds: number; purgeIntervalSeconds: number };
  auth?: {
    htpasswd?: { path: string; realm?: string };
    token?: {
      htpasswd?: string;
      service?: string;
      issuer?: string;
      realm?: string;
      expirySeconds?: number;
      secret?: string;
      access?: AccessRule[];
    };
  };
  tls?: { certificate: string; key: string };
  rateLimit?: { requestsPerSecond: number; burst: number };
  idleTimeoutSeconds: number;
  events?: { log?: string; endpoint?: string };
}

export const defaultConfig: RegistryConfig = {
  readOnly: false,
  deleteEnabled: true,
  pageCap: 1000,
  uploads: { expireSeconds: 7 * 24 * 3600, purgeIntervalSeconds: 3600 },
  idleTimeoutSeconds: 120,
};

function positive(value: unknown, field: string): void {
  if (typeof value !== 'number' || !(value > 0))
    throw new Error(`config: ${field} must be a positive number`);
}

export function parseConfig(text: string, source = 'config'): RegistryConfig {
  let raw: Partial<RegistryConfig>;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new Error(`${source}: not valid JSON (${(err as Error).message})`, { cause: err });
  }
  const config: RegistryConfig = {
    ...defaultConfig,
    ...raw,
    uploads: { ...defaultConfig.uploads, ...raw.uploads },
  };
  positive(config.pageCap, 'pageCap');
  positive(config.idleTimeoutSeconds, 'idleTimeoutSeconds');
  positive(config.uploads.expireSeconds, 'uploads.expireSeconds');
  positive(config.uploads.purgeIntervalSeconds, 'uploads.purgeIntervalSeconds');
  if (config.rateLimit) {
    positive(config.rateLimit.requestsPerSecond, 'rateLimit.requestsPerSecond');
    positive(config.rateLimit.burst, 'rateLimit.burst');
  }
  if (config.auth?.htpasswd && config.auth.token)
    throw new Error('config: choose one of auth.htpasswd and auth.token');
  if (config.auth?.htpasswd && typeof config.auth.htpasswd.path !== 'string') {
    throw new Error('config: auth.htpasswd.path is required');
  }
  if (config.tls && (typeof config.tls.certificate !== 'string' || typeof config.tls.key !== 'string')) {
    throw new Error('config: tls needs certificate and key');
  }
  return config;
}

export function loadConfig(file?: string): RegistryConfig {
  if (!file) return { ...defaultConfig };
  return parseConfig(readFileSync(file, 'utf8'), file);
}
