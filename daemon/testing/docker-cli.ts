// The real docker CLI pointed at a suite's svcd (or any engine's socket): its own config dir,
// and scratch directories removed after the suite.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after } from 'node:test';
import { promisify } from 'node:util';
import type { Engine } from './containers-fixture';

const run = promisify(execFile);

export interface DockerCli {
  /** Runs `docker ARGS` and answers its trimmed stdout (rejects on a non-zero exit). */
  docker(...args: string[]): Promise<string>;
  /** The environment the CLI runs with (DOCKER_HOST, DOCKER_CONFIG), for docker-compose too. */
  env(): NodeJS.ProcessEnv;
  /** A temp directory removed after the suite. */
  scratch(prefix: string): string;
}

/** Inside a describe() that has `useEngine()`: the docker CLI against that engine. */
export function useDockerCli(suite: () => Engine): DockerCli {
  return useDockerCliOn(() => suite().svcd.socket);
}

/** Inside a describe(): the docker CLI against the engine listening on `socket()`. */
export function useDockerCliOn(socket: () => string): DockerCli {
  const dirs: string[] = [];
  after(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  const scratch = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  let config: string | undefined;
  const env = () => ({
    ...process.env,
    DOCKER_HOST: `unix://${socket()}`,
    DOCKER_CONFIG: (config ??= scratch('docker-cfg-')),
    // svcd serves the classic builder; the CLI would otherwise ask for a BuildKit session.
    DOCKER_BUILDKIT: '0',
  });
  return {
    docker: async (...args) => (await run('docker', args, { env: env(), encoding: 'utf8' })).stdout.trim(),
    env,
    scratch,
  };
}
