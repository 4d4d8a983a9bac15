// scripts/setup.mjs run as a normal user: it names what rootless svcd lacks as the exact root
// commands, and those commands are enough. The user is a fixed system account made once (a system
// account gets no subordinate IDs from useradd); the ranges the test adds are removed at the end.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const setup = join(dirname(fileURLToPath(import.meta.url)), 'setup.mjs');
const name = 'svc-setup-test';
const isRoot = process.getuid?.() === 0;
const skip = !isRoot
  ? 'makes its test user as root'
  : !existsSync('/usr/bin/setpriv')
    ? 'setpriv missing'
    : !existsSync('/usr/sbin/usermod')
      ? 'usermod missing'
      : undefined;

function ensureUser() {
  if (spawnSync('id', ['-u', name]).status !== 0)
    execFileSync('useradd', ['--system', '--no-create-home', '--shell', '/usr/sbin/nologin', name]);
  const id = (flag) => execFileSync('id', [flag, name], { encoding: 'utf8' }).trim();
  return { uid: id('-u'), gid: id('-g') };
}

/** `node setup.mjs --check` as the test user. */
function checkAsUser(user) {
  const r = spawnSync(
    'setpriv',
    [`--reuid=${user.uid}`, `--regid=${user.gid}`, '--clear-groups', process.execPath, setup, '--check'],
    { encoding: 'utf8', env: { ...process.env, HOME: '/nonexistent' } },
  );
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const rangeOf = (file) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${name}:`));

describe('setup as a normal user', { skip }, () => {
  const added = [];
  after(() => {
    for (const [flag, range] of added) spawnSync('usermod', [flag, range, name]);
  });

  test('without subordinate IDs it prints the usermod commands, which are then enough', () => {
    const user = ensureUser();
    assert.equal(rangeOf('/etc/subuid'), undefined, 'the system account has no subordinate uids');
    const before = checkAsUser(user);
    assert.equal(before.status, 1, before.stderr);
    const lines = before.stderr.trim().split('\n');
    assert.equal(lines[0], 'setup: rootless svcd needs what only root can set up. Run as root:');
    const usermods = lines.filter((l) => /^ {2}usermod /.test(l));
    assert.deepEqual(
      usermods.map((l) => l.replace(/\d+-\d+/, 'N-M')),
      [
        `  usermod --add-subuids N-M ${name}   # no range of 65536 IDs in /etc/subuid`,
        `  usermod --add-subgids N-M ${name}   # no range of 65536 IDs in /etc/subgid`,
      ],
    );
    // Run exactly what it printed (the part before the comment), as root would.
    for (const line of usermods) {
      const [, flag, range] = line.split('#')[0].trim().split(/\s+/);
      execFileSync('usermod', [flag, range, name]);
      added.push([flag.replace('--add-', '--del-'), range]);
      const [start, end] = range.split('-').map(Number);
      assert.equal(end - start + 1, 65536);
    }
    assert.match(rangeOf('/etc/subuid'), new RegExp(`^${name}:\\d+:65536$`));
    // This machine has the packages and a usable /dev/net/tun, so nothing else was asked for.
    const afterwards = checkAsUser(user);
    assert.deepEqual(
      [afterwards.status, afterwards.stdout, afterwards.stderr],
      [0, 'setup: rootless svcd has what it needs here\n', ''],
      'only the subordinate IDs were missing here: ' + before.stderr,
    );
  });
});
