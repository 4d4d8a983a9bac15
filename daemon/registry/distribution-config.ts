// Distribution's configuration format (YAML, `version: 0.1`), for the keys svc-registry
// supports, mapped onto its own configuration. A key outside the table below is named in the
// startup error rather than silently dropped; the few that change nothing here (logging, the
// upload-state secret, health checks, the blob descriptor cache) are accepted and ignored.
// Environment variables override as Distribution's do: REGISTRY_STORAGE_S3_BUCKET sets
// storage.s3.bucket.
import { parseGoDuration } from '../lib/go-duration';
import type { RegistryConfig } from './config';

export interface S3Config {
  accessKey: string;
  secretKey: string;
  region: string;
  /** The endpoint URL of an S3-compatible store; AWS's regional endpoint when absent. */
  regionEndpoint?: string;
  bucket: string;
  secure: boolean;
  skipVerify: boolean;
  /** Key prefix of everything stored, without slashes at either end. */
  rootDirectory: string;
  chunkSize: number;
  multipartCopyThresholdSize: number;
  multipartCopyChunkSize: number;
  /** Parts of a multipart copy (and deletes) in flight at once. */
  multipartCopyMaxConcurrency: number;
  storageClass?: string;
}

export interface StorageConfig {
  filesystem?: { rootDirectory: string };
  s3?: S3Config;
}

type Leaf = 'string' | 'number' | 'boolean' | 'duration' | 'ignored';
interface Schema {
  [key: string]: Leaf | Schema;
}

const s3Schema: Schema = {
  accesskey: 'string',
  secretkey: 'string',
  region: 'string',
  regionendpoint: 'string',
  forcepathstyle: 'boolean',
  bucket: 'string',
  secure: 'boolean',
  skipverify: 'boolean',
  v4auth: 'boolean',
  chunksize: 'number',
  rootdirectory: 'string',
  multipartcopythresholdsize: 'number',
  multipartcopychunksize: 'number',
  multipartcopymaxconcurrency: 'number',
  storageclass: 'string',
  encrypt: 'boolean',
};

const schema: Schema = {
  version: 'string',
  log: 'ignored',
  health: 'ignored',
  http: {
    addr: 'string',
    net: 'string',
    secret: 'ignored',
    headers: 'ignored',
    debug: 'ignored',
    draintimeout: 'ignored',
    tls: { certificate: 'string', key: 'string' },
  },
  storage: {
    filesystem: { rootdirectory: 'string', maxthreads: 'ignored' },
    s3: s3Schema,
    delete: { enabled: 'boolean' },
    redirect: { disable: 'boolean' },
    cache: 'ignored',
    maintenance: {
      uploadpurging: { enabled: 'boolean', age: 'duration', interval: 'duration', dryrun: 'boolean' },
      readonly: { enabled: 'boolean' },
    },
  },
  auth: {
    htpasswd: { realm: 'string', path: 'string' },
    token: {
      realm: 'string',
      service: 'string',
      issuer: 'string',
      rootcertbundle: 'string',
      autoredirect: 'boolean',
    },
  },
};

/** A Go duration ("168h", "1h30m", "500ms") in seconds; negative ones are refused. */
export function parseDuration(text: string): number | undefined {
  const ns = parseGoDuration(text);
  return ns !== undefined && ns >= 0 ? ns / 1e9 : undefined;
}

function coerce(value: unknown, leaf: Leaf, where: string): unknown {
  if (leaf === 'ignored') return value;
  if (leaf === 'string' && (typeof value === 'string' || typeof value === 'number')) return String(value);
  if (leaf === 'boolean') {
    if (typeof value === 'boolean') return value;
    if (value === 'true' || value === 'false') return value === 'true';
  }
  if (leaf === 'number') {
    const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
    if (typeof n === 'number' && Number.isFinite(n) && n >= 0) return n;
  }
  if (leaf === 'duration') {
    const seconds = typeof value === 'string' ? parseDuration(value) : undefined;
    if (seconds !== undefined) return seconds;
  }
  throw new Error(`${where}: expected ${leaf === 'duration' ? 'a duration such as 24h' : `a ${leaf}`}`);
}

/** Checks every key against the schema (lowercase, as Distribution's are) and coerces leaves. */
function validate(raw: unknown, node: Schema, where: string, unknown: string[]): Record<string, unknown> {
  if (raw === null || raw === undefined) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) throw new Error(`${where}: expected a mapping`);
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    const child = node[key.toLowerCase()];
    const path = where ? `${where}.${key}` : key;
    if (!child) unknown.push(path);
    else if (typeof child === 'string') out[key.toLowerCase()] = coerce(value, child, path);
    else out[key.toLowerCase()] = validate(value, child, path, unknown);
  }
  return out;
}

/** Applies REGISTRY_A_B_C=value as a.b.c, matching segments against the schema's keys. */
function applyEnv(tree: Record<string, unknown>, env: NodeJS.ProcessEnv): void {
  for (const [name, value] of Object.entries(env)) {
    if (!name.startsWith('REGISTRY_') || value === undefined) continue;
    const segments = name.slice('REGISTRY_'.length).toLowerCase().split('_');
    let node: Schema | Leaf = schema;
    let target = tree;
    for (const [i, segment] of segments.entries()) {
      if (typeof node === 'string' || !node[segment]) break;
      node = node[segment];
      if (i === segments.length - 1) {
        if (typeof node === 'string') target[segment] = value;
      } else if (typeof node !== 'string') {
        const next = target[segment];
        target = target[segment] =
          typeof next === 'object' && next !== null ? (next as Record<string, unknown>) : {};
      }
    }
  }
}

type Tree = Record<string, Record<string, unknown> | undefined>;

/** The S3 section with Distribution's defaults, as both configuration forms give it. */
export function parseS3Config(raw: Record<string, unknown>, where: string): S3Config {
  const unknown: string[] = [];
  const s3 = validate(raw, s3Schema, where, unknown);
  if (unknown.length) throw new Error(`unsupported configuration keys: ${unknown.join(', ')}`);
  for (const key of ['bucket', 'region'])
    if (typeof s3[key] !== 'string' || !s3[key]) throw new Error(`${where}.${key} is required`);
  if (s3.v4auth === false) throw new Error(`${where}.v4auth: only V4 signatures are supported`);
  if (s3.encrypt === true) throw new Error(`${where}.encrypt: server-side encryption is not supported`);
  if (s3.forcepathstyle === false)
    throw new Error(`${where}.forcepathstyle: only path-style addressing is supported`);
  const secure = s3.secure !== false;
  const mib = 1 << 20;
  const chunkSize = (s3.chunksize as number | undefined) ?? 10 * mib;
  if (chunkSize < 5 * mib) throw new Error(`${where}.chunksize must be at least 5 MiB (${5 * mib})`);
  const copyChunk = (s3.multipartcopychunksize as number | undefined) ?? 32 * mib;
  if (copyChunk < 5 * mib || copyChunk > 5 * 1024 * mib)
    throw new Error(`${where}.multipartcopychunksize must be between 5 MiB and 5 GiB`);
  const region = s3.region as string;
  const accessKey = (s3.accesskey as string | undefined) ?? '';
  const secretKey = (s3.secretkey as string | undefined) ?? '';
  if (!accessKey || !secretKey) throw new Error(`${where}: accesskey and secretkey are required`);
  const storageClass = s3.storageclass as string | undefined;
  return {
    accessKey,
    secretKey,
    region,
    regionEndpoint: s3.regionendpoint as string | undefined,
    bucket: s3.bucket as string,
    secure,
    skipVerify: s3.skipverify === true,
    rootDirectory: String(s3.rootdirectory ?? '').replace(/^\/+|\/+$/g, ''),
    chunkSize,
    multipartCopyThresholdSize: (s3.multipartcopythresholdsize as number | undefined) ?? 32 * mib,
    multipartCopyChunkSize: copyChunk,
    multipartCopyMaxConcurrency: (s3.multipartcopymaxconcurrency as number | undefined) || 100,
    storageClass: storageClass && storageClass !== 'NONE' ? storageClass : undefined,
  };
}

/** The endpoint URL the S3 client talks to. */
export function s3Endpoint(s3: S3Config): string {
  const scheme = s3.secure ? 'https' : 'http';
  if (!s3.regionEndpoint) return `${scheme}://s3.${s3.region}.amazonaws.com`;
  return /^https?:\/\//.test(s3.regionEndpoint) ? s3.regionEndpoint : `${scheme}://${s3.regionEndpoint}`;
}

// Distribution keeps everything under this prefix of its root directory; so does svc-registry
// on a Distribution config, so each can serve what the other stored.
const distributionPrefix = 'docker/registry/v2';

export function fromDistributionConfig(
  input: Record<string, unknown>,
  env: NodeJS.ProcessEnv,
  source: string,
): Partial<RegistryConfig> {
  const unknown: string[] = [];
  const tree = validate(input, schema, '', unknown) as Tree;
  if (unknown.length) throw new Error(`${source}: unsupported configuration keys: ${unknown.join(', ')}`);
  applyEnv(tree as Record<string, unknown>, env);
  if (String(tree.version) !== '0.1') throw new Error(`${source}: version must be 0.1`);
  const storage = (tree.storage ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const http = tree.http ?? {};
  const auth = tree.auth ?? {};
  const out: Partial<RegistryConfig> = {
    deleteEnabled: storage.delete?.enabled === true,
    redirect: storage.redirect?.disable !== true,
  };
  const drivers = ['filesystem', 's3'].filter((d) => storage[d]);
  if (drivers.length > 1) throw new Error(`${source}: storage: choose one of ${drivers.join(' and ')}`);
  if (storage.s3) {
    const s3 = parseS3Config(storage.s3, 'storage.s3');
    s3.rootDirectory = [s3.rootDirectory, distributionPrefix].filter(Boolean).join('/');
    out.storage = { s3 };
  } else if (storage.filesystem) {
    const root = String(storage.filesystem.rootdirectory ?? '/var/lib/registry');
    out.storage = { filesystem: { rootDirectory: `${root.replace(/\/+$/, '')}/${distributionPrefix}` } };
  }
  const maintenance = (storage.maintenance ?? {}) as Record<string, Record<string, unknown> | undefined>;
  const purging = maintenance.uploadpurging;
  if (purging?.enabled === false) out.uploads = { expireSeconds: 168 * 3600, purgeIntervalSeconds: Infinity };
  else if (purging) {
    out.uploads = {
      expireSeconds: (purging.age as number | undefined) ?? 168 * 3600,
      purgeIntervalSeconds: (purging.interval as number | undefined) ?? 24 * 3600,
    };
    if (purging.dryrun === true)
      throw new Error(`${source}: storage.maintenance.uploadpurging.dryrun is not supported`);
  }
  if (maintenance.readonly?.enabled === true) out.readOnly = true;
  if (http.net !== undefined && http.net !== 'tcp')
    throw new Error(`${source}: http.net: only tcp is supported`);
  if (typeof http.addr === 'string') out.addr = http.addr;
  const tls = http.tls as Record<string, string> | undefined;
  if (tls) out.tls = { certificate: tls.certificate, key: tls.key };
  const htpasswd = auth.htpasswd as Record<string, string> | undefined;
  if (htpasswd) out.auth = { htpasswd: { path: htpasswd.path, realm: htpasswd.realm } };
  const token = auth.token as Record<string, string | boolean> | undefined;
  if (token) {
    const missing = ['realm', 'service', 'issuer', 'rootcertbundle'].filter((k) => !token[k]);
    if (missing.length) throw new Error(`${source}: auth.token needs ${missing.join(', ')}`);
    if (htpasswd) throw new Error(`${source}: auth: choose one of htpasswd and token`);
    if (token.autoredirect === true) throw new Error(`${source}: auth.token.autoredirect is not supported`);
    out.auth = {
      token: {
        realm: String(token.realm),
        service: String(token.service),
        issuer: String(token.issuer),
        rootCertBundle: String(token.rootcertbundle),
      },
    };
  }
  return out;
}
