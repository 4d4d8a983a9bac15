// Starts a real Distribution 2.8 registry (Debian's `docker-registry`) on 127.0.0.1 with storage
// in a temp dir, for tests: anonymous, htpasswd basic auth, or token auth against a given realm.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { freePort } from './free-port';
import os from 'node:os';
import path from 'node:path';

export interface DistributionOptions {
  /** htpasswd basic auth with one user. */
  basic?: { username: string; password: string };
  /** Token auth: the registry trusts tokens signed by the key of `rootCertBundle` (a PEM file). */
  token?: { realm: string; service: string; issuer: string; rootCertBundle: string };
  /** Serve `compatibility.schema1.enabled` (accept signed schema1 manifests). */
  schema1?: boolean;
}

export interface Distribution {
  /** `127.0.0.1:PORT` */
  host: string;
  url: string;
  /** Storage root: Distribution's `docker/registry/v2/...` tree lives under it. */
  storage: string;
  /** The file holding a blob's bytes in Distribution's storage. */
  blobFile(digest: string): string;
  stop(): Promise<void>;
}

// Callers of this fixture take their ports from it too.
export { freePort };

function configYaml(storage: string, host: string, auth: string): string {
  return [
    'version: 0.1',
    'log:',
    '  level: error',
    '  accesslog:',
    '    disabled: true',
    'storage:',
    '  filesystem:',
    `    rootdirectory: ${storage}`,
    '  delete:',
    '    enabled: true',
    'http:',
    `  addr: ${host}`,
    '  secret: svc-test-secret',
    auth,
  ].join('\n');
}

export async function startDistribution(options: DistributionOptions = {}): Promise<Distribution> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'distribution-'));
  const storage = path.join(dir, 'storage');
  const host = `127.0.0.1:${await freePort()}`;
  let auth = '';
  if (options.basic) {
    const line = execFileSync('htpasswd', ['-Bbn', options.basic.username, options.basic.password], {
      encoding: 'utf8',
    });
    const file = path.join(dir, 'htpasswd');
    await writeFile(file, line.trim() + '\n');
    auth = ['auth:', '  htpasswd:', '    realm: basic-realm', `    path: ${file}`].join('\n');
  } else if (options.token) {
    const t = options.token;
    auth = [
      'auth:',
      '  token:',
      `    realm: ${t.realm}`,
      `    service: ${t.service}`,
      `    issuer: ${t.issuer}`,
      `    rootcertbundle: ${t.rootCertBundle}`,
    ].join('\n');
  }
  if (options.schema1) auth += '\ncompatibility:\n  schema1:\n    enabled: true';
  const config = path.join(dir, 'config.yml');
  await writeFile(config, configYaml(storage, host, auth) + '\n');
  const child: ChildProcess = spawn('docker-registry', ['serve', config], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`docker-registry exited: ${stderr}`);
    }
    try {
      const res = await fetch(`http://${host}/v2/`);
      await res.body?.cancel();
      if (res.status === 200 || res.status === 401) break;
    } catch {}
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not start on ${host}: ${stderr}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    host,
    url: `http://${host}`,
    storage,
    blobFile: (digest) => {
      const [algorithm, hex] = digest.split(':');
      return path.join(storage, 'docker/registry/v2/blobs', algorithm, hex.slice(0, 2), hex, 'data');
    },
    stop,
  };
}
