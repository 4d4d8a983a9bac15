// A full copy compared with its base (the native storage driver's `docker diff`), on real trees
// copied as containerd's native snapshotter copies them (times and owners kept).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { copyChanges } from './container-changes';

const dir = mkdtempSync(join(tmpdir(), 'svc-changes-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('added trees in full, a deleted tree by its top, changed files and the directories above them', async () => {
  const base = join(dir, 'base');
  for (const d of ['etc', 'gone/deep', 'usr/lib', 'var/log']) mkdirSync(join(base, d), { recursive: true });
  writeFileSync(join(base, 'etc/passwd'), 'root:x:0:0\n');
  writeFileSync(join(base, 'gone/deep/file'), 'x');
  writeFileSync(join(base, 'usr/lib/same'), 'same');
  utimesSync(join(base, 'etc/passwd'), 1, 1);
  execFileSync('cp', ['-a', base, join(dir, 'copy')]);
  const copy = join(dir, 'copy');
  assert.deepEqual(await copyChanges(copy, base), []);

  writeFileSync(join(copy, 'etc/passwd'), 'root:x:0:0\nuser:x:1:1\n');
  rmSync(join(copy, 'gone'), { recursive: true });
  mkdirSync(join(copy, 'new/sub'), { recursive: true });
  writeFileSync(join(copy, 'new/sub/file'), 'n');
  chmodSync(join(copy, 'var/log'), 0o700);
  assert.deepEqual(await copyChanges(copy, base), [
    { Path: '/etc', Kind: 0 },
    { Path: '/etc/passwd', Kind: 0 },
    { Path: '/gone', Kind: 2 },
    { Path: '/new', Kind: 1 },
    { Path: '/new/sub', Kind: 1 },
    { Path: '/new/sub/file', Kind: 1 },
    { Path: '/var', Kind: 0 },
    { Path: '/var/log', Kind: 0 },
  ]);
});
