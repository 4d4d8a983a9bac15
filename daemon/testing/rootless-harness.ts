// A rootless svcd for a test suite run as root: an unprivileged user with subordinate IDs (one
// fixed user, made once and reused), and svcd started as that user from its own temp directory
// (HOME, XDG_RUNTIME_DIR, data root, socket), removed by destroySvcd as any suite's.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, chown, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSvcd, type SvcdHarnessOptions, type SvcdInstance } from './svcd-harness';

export const rootlessUserName = 'svc-rootless';

/** What a rootless suite needs on this machine; undefined when it can run, else what is missing. */
export function rootlessSkipReason(): string | undefined {
  if (process.getuid?.() !== 0) return 'the rootless suite makes its user as root';
  const missing = ['rootlesskit', 'slirp4netns', 'newuidmap', 'setpriv'].filter(
    (tool) => !['/usr/bin', '/usr/sbin', '/bin'].some((dir) => existsSync(join(dir, tool))),
  );
  if (missing.length > 0) return `missing ${missing.join(', ')} (node scripts/setup.mjs installs them)`;
  return undefined;
}

function hasRange(file: string, name: string): boolean {
  return (existsSync(file) ? readFileSync(file, 'utf8') : '')
    .split('\n')
    .some((l) => l.startsWith(`${name}:`));
}

/** The test user, made with a home and 65536 subordinate IDs unless it exists already. */
export function ensureRootlessUser(): { uid: number; gid: number } {
  const id = (flag: string) => Number(execFileSync('id', [flag, rootlessUserName], { encoding: 'utf8' }));
  try {
    id('-u');
  } catch {
    execFileSync('useradd', ['--create-home', '--shell', '/usr/sbin/nologin', rootlessUserName]);
  }
  // useradd gives new users a range where login.defs says so; older users may have none.
  if (!hasRange('/etc/subuid', rootlessUserName) || !hasRange('/etc/subgid', rootlessUserName)) {
    execFileSync('usermod', [
      '--add-subuids',
      '300000-365535',
      '--add-subgids',
      '300000-365535',
      rootlessUserName,
    ]);
  }
  return { uid: id('-u'), gid: id('-g') };
}

/** A temp directory the test user owns, with its `home` and `run` (XDG_RUNTIME_DIR) in it. */
export async function makeRootlessDir(
  prefix = 'svcd-',
): Promise<{ dir: string; user: { uid: number; gid: number } }> {
  const user = ensureRootlessUser();
  const dir = await mkdtemp(join(tmpdir(), prefix));
  for (const sub of ['', 'home', 'run']) {
    await mkdir(join(dir, sub), { recursive: true });
    await chown(join(dir, sub), user.uid, user.gid);
    await chmod(join(dir, sub), 0o700);
  }
  return { dir, user };
}

/** svcd started as the test user (so rootless by default) in a temp directory it owns. */
export async function startRootlessSvcd(opts: SvcdHarnessOptions = {}): Promise<SvcdInstance> {
  return startSvcd({ ...opts, ...(await makeRootlessDir()) });
}
