// Starts svc-registry as a child process on a random port and a temp data dir, for tests of this
// and other suites. From .ts sources it runs through tsx; from build/ it runs the compiled file.
import { spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../../lib/product';
import { registryEnv, registryNodeFlags } from '../../lib/registry-launch';

export interface RegistryProcess {
  /** e.g. http://127.0.0.1:40123 (https:// when the config turns TLS on) */
  url: string;
  /** e.g. 127.0.0.1:40123, as image references name the registry. */
  host: string;
  port: number;
  dataDir: string;
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
  /** A fixed port (e.g. to restart where clients expect it); random otherwise. */
  port?: number;
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
  const args = ['serve', '--data', dataDir, '--addr', `127.0.0.1:${options.port ?? 0}`];
  if (options.config) {
    const file = join(dataDir, 'test-config.json');
    await writeFile(file, JSON.stringify(options.config));
    args.push('--config', file);
  }
  if (options.user) await chown(dataDir, options.user.uid, options.user.gid);
  const child = spawn(process.execPath, registryCommand(args), {
    cwd: repoRoot(),
    env: { ...process.env, ...registryEnv },
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
