// Starts svc-registry as a child process on a random port and a temp data dir, for tests of this
// and other suites. From .ts sources it runs through tsx; from build/ it runs the compiled file.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../lib/product';
import { registryEnv, registryNodeFlags } from '../../lib/registry-launch';
import { defaultConfig, parseConfig } from '../config';
import type { StorageDriver } from '../storage/driver';
import { driverFromConfig } from '../storage/driver-from-config';
import { S3Client } from '../storage/s3-client';

/**
 * The suites of the registry run on the filesystem driver, or, when this variable holds a
 * Ceph gateway's {endpoint, accessKey, secretKey} (as s3.test.ts sets it), on S3: each registry
 * then gets a bucket of its own, named in its data dir so a restart on that dir finds it again.
 */
export const s3TestEnv = 'SVC_REGISTRY_TEST_S3';

export interface S3TestTarget {
  endpoint: string;
  accessKey: string;
  secretKey: string;
}

export function testStorage(): 'filesystem' | 's3' {
  return process.env[s3TestEnv] ? 's3' : 'filesystem';
}

/** A new bucket on the gateway, named `<prefix>-<random>`. */
export async function createTestBucket(target: S3TestTarget, prefix: string): Promise<string> {
  const bucket = `${prefix}-${randomBytes(6).toString('hex')}`;
  const client = new S3Client({ ...target, region: 'us-east-1', bucket });
  try {
    await client.createBucket();
  } finally {
    client.close();
  }
  return bucket;
}

async function s3Storage(dataDir: string): Promise<object> {
  const target = JSON.parse(process.env[s3TestEnv]!) as S3TestTarget;
  await mkdir(dataDir, { recursive: true });
  const file = join(dataDir, 's3-bucket');
  const bucket = await readFile(file, 'utf8').catch(async () => {
    const name = await createTestBucket(target, 'reg');
    await writeFile(file, name);
    return name;
  });
  return {
    s3: {
      accesskey: target.accessKey,
      secretkey: target.secretKey,
      region: 'us-east-1',
      regionendpoint: target.endpoint,
      bucket,
      // Small chunks, so that modest test blobs already span several segments.
      chunksize: 5 << 20,
    },
  };
}

export interface RegistryProcess {
  /** e.g. http://127.0.0.1:40123 (https:// when the config turns TLS on) */
  url: string;
  /** e.g. 127.0.0.1:40123, as image references name the registry. */
  host: string;
  port: number;
  /** A temp dir of the test's; the storage itself on the filesystem driver. */
  dataDir: string;
  /** Where the registry stores (the same driver it runs), for tests to look inside. */
  driver: StorageDriver;
  /** The arguments naming its storage, for `gc`: --data DIR or --config FILE. */
  storageArgs: string[];
  child: ChildProcess;
  /** What the process wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM and wait; removes the data dir unless it was given. */
  stop(): Promise<void>;
  /** SIGKILL and wait, keeping the data dir (to restart on it). */
  kill(): Promise<void>;
}

export interface StartOptions {
  /** Reuse a data dir (e.g. after kill); a fresh temp dir otherwise. */
  dataDir?: string;
  /** The configuration object, written to a temp file and passed with --config. */
  config?: object;
  /** A configuration file of the caller's, passed with --config as it is (instead of `config`). */
  configFile?: string;
  /** A fixed port (e.g. to restart where clients expect it); random otherwise. */
  port?: number;
  /** More environment, e.g. Distribution's REGISTRY_* overrides of the config. */
  env?: Record<string, string>;
  /** Run as this user (e.g. the rootless suite's), owning the data dir. */
  user?: { uid: number; gid: number };
}

/** The argv that runs svc-registry with the given arguments. */
export function registryCommand(args: string[]): string[] {
  const root = repoRoot();
  return __filename.endsWith('.ts')
    ? [...registryNodeFlags, '--import', 'tsx', join(root, 'daemon/bin/svc-registry.ts'), ...args]
    : [...registryNodeFlags, join(root, 'build/daemon/bin/svc-registry.js'), ...args];
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startRegistry(options: StartOptions = {}): Promise<RegistryProcess> {
  const ownDir = !options.dataDir;
  const dataDir = options.dataDir ?? (await mkdtemp(join(tmpdir(), 'svc-registry-test-')));
  const onS3 = testStorage() === 's3' && !options.configFile;
  const config = onS3 ? { ...options.config, storage: await s3Storage(dataDir) } : options.config;
  const configFile = options.configFile ?? join(dataDir, 'test-config.json');
  const configText = options.configFile ? await readFile(configFile, 'utf8') : JSON.stringify(config ?? {});
  if (config && !options.configFile) await writeFile(configFile, configText);
  const parsed = parseConfig(configText, configFile, options.env);
  // Storage named by the config (the test's S3 bucket, or a caller's own) rather than the data dir.
  const ownStorage = parsed.storage !== undefined;
  const args = ['serve', '--addr', `127.0.0.1:${options.port ?? 0}`];
  if (!ownStorage) args.push('--data', dataDir);
  if (config || options.configFile) args.push('--config', configFile);
  const driver = ownStorage ? driverFromConfig(parsed) : driverFromConfig(defaultConfig, () => dataDir);
  if (options.user) await chown(dataDir, options.user.uid, options.user.gid);
  const child = spawn(process.execPath, registryCommand(args), {
    cwd: repoRoot(),
    env: { ...process.env, ...registryEnv, ...options.env },
    ...options.user,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const { scheme, port } = await new Promise<{ scheme: string; port: number }>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`svc-registry did not start: ${stderr}`)), 30_000);
    child.stdout?.setEncoding('utf8').on('data', (d: string) => {
      out += d;
      const m = /listening on (https?):\/\/[^:]+:(\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ scheme: m[1], port: Number(m[2]) });
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`svc-registry exited with ${code}: ${stderr}`));
    });
  });
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    port,
    dataDir,
    driver,
    storageArgs: ownStorage ? ['--config', configFile] : ['--data', dataDir],
    child,
    stderr: () => stderr,
    async stop() {
      child.kill('SIGTERM');
      await exited(child);
      if (ownDir) await rm(dataDir, { recursive: true, force: true });
    },
    async kill() {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}
