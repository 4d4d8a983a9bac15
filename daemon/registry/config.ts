// The registry's configuration, given with --config: either Distribution's YAML format
// (`version: 0.1`, read by distribution-config.ts) or this JSON form, every field optional.
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
//       or  { "token": { "realm": "https://auth.example/token", "service": "...", "issuer": "...",
//                        "rootCertBundle": "certs.pem" } }   tokens of an outside token server
//   "tls": { "certificate": "cert.pem", "key": "key.pem" },
//   "rateLimit": { "requestsPerSecond": 100, "burst": 200 },
//   "idleTimeoutSeconds": 120,         a connection silent this long (a stalled upload) is closed
//   "events": { "log": "events.jsonl", "endpoint": "http://127.0.0.1:9000/events" },
//   "storage": { "s3": { ...Distribution's storage.s3 keys, see distribution-config.ts } },
//   "redirect": false                  answer blob GETs with 307 to the store (S3 only)
// }
import { readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import type { AccessRule } from './auth/token-issuer';
import { fromDistributionConfig, parseS3Config, type StorageConfig } from './distribution-config';

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
      /** An outside token server's certificates (Distribution's rootcertbundle): no /token here. */
      rootCertBundle?: string;
    };
  };
  tls?: { certificate: string; key: string };
  rateLimit?: { requestsPerSecond: number; burst: number };
  idleTimeoutSeconds: number;
  events?: { log?: string; endpoint?: string };
  /** Where blobs and metadata live; the --data directory when absent. */
  storage?: StorageConfig;
  /** Blob GETs answer 307 to a pre-signed URL of the store, when the driver has one. */
  redirect: boolean;
  /** http.addr of a Distribution config: where to listen when --addr is not given. */
  addr?: string;
}

export const defaultConfig: RegistryConfig = {
  readOnly: false,
  deleteEnabled: true,
  pageCap: 1000,
  uploads: { expireSeconds: 7 * 24 * 3600, purgeIntervalSeconds: 3600 },
  idleTimeoutSeconds: 120,
  redirect: false,
};

function positive(value: unknown, field: string): void {
  if (typeof value !== 'number' || !(value > 0))
    throw new Error(`config: ${field} must be a positive number`);
}

/** Reads either form; `env` supplies Distribution's REGISTRY_* overrides to its format. */
export function parseConfig(text: string, source = 'config', env: NodeJS.ProcessEnv = {}): RegistryConfig {
  let raw: Partial<RegistryConfig> & { version?: unknown };
  try {
    // JSON is YAML: one parser reads both forms.
    raw = parseYaml(text) ?? {};
  } catch (err) {
    throw new Error(`${source}: not valid YAML or JSON (${(err as Error).message})`, { cause: err });
  }
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${source}: not a configuration object`);
  if ('version' in raw) raw = fromDistributionConfig(raw as Record<string, unknown>, env, source);
  else if (raw.storage) raw.storage = parseStorage(raw.storage, source);
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

function parseStorage(storage: StorageConfig, source: string): StorageConfig {
  if (storage.s3)
    return { s3: parseS3Config(storage.s3 as unknown as Record<string, unknown>, `${source}: storage.s3`) };
  return storage;
}

export function loadConfig(file?: string, env: NodeJS.ProcessEnv = process.env): RegistryConfig {
  if (!file) return { ...defaultConfig };
  return parseConfig(readFileSync(file, 'utf8'), file, env);
}
