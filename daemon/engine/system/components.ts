// Versions of the programs svcd runs on, for /version and /info.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ComponentInfo } from './system-service';

const run = promisify(execFile);

async function programVersion(cmd: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run(cmd, args, { timeout: 5000 });
    return stdout;
  } catch {
    return '';
  }
}

/** runc and tini report their versions once; containerd's is asked each time (it may have restarted). */
export async function componentsReporter(
  containerdVersion: () => Promise<{ version: string; revision: string }>,
): Promise<() => Promise<ComponentInfo>> {
  const [runcOut, tiniOut] = await Promise.all([
    programVersion('runc', ['--version']),
    programVersion('tini', ['--version']),
  ]);
  const runc = {
    version: /runc version (\S+)/.exec(runcOut)?.[1] ?? 'unknown',
    commit: /commit: (\S+)/.exec(runcOut)?.[1] ?? '',
  };
  const tiniVersion = /tini version (\S+)/.exec(tiniOut)?.[1];
  return async () => ({
    containerd: await containerdVersion(),
    runc,
    ...(tiniVersion ? { init: { version: tiniVersion } } : {}),
  });
}
