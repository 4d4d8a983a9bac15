// The storage driver probe against the real kernel: an overlay mount works in a plain directory,
// and is refused inside another overlay (overlayfs is no upper directory for an overlay).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chooseStorageDriver } from './storage-driver';

describe('storage driver probe', () => {
  let dir: string;
  let merged: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'svc-probe-'));
    const [lower, upper, work] = ['lower', 'upper', 'work'].map((d) => join(dir, d));
    merged = join(dir, 'merged');
    for (const d of [lower, upper, work, merged]) mkdirSync(d);
    execFileSync('mount', [
      '-t',
      'overlay',
      '-o',
      `lowerdir=${lower},upperdir=${upper},workdir=${work}`,
      'overlay',
      merged,
    ]);
  });
  after(() => {
    execFileSync('umount', [merged]);
    rmSync(dir, { recursive: true, force: true });
  });

  test('overlayfs where an overlay mounts, and the probe leaves nothing behind', async () => {
    const probeDir = join(dir, 'plain');
    assert.deepEqual(await chooseStorageDriver(probeDir, undefined), {
      name: 'overlayfs',
      reason: 'probed: overlay mount works',
    });
    assert.deepEqual(readdirSync(probeDir), []);
  });

  test('native where the kernel refuses, with its reason; overlayfs forced there is refused', async () => {
    const probeDir = join(merged, 'data');
    const chosen = await chooseStorageDriver(probeDir, undefined);
    assert.equal(chosen.name, 'native');
    assert.match(chosen.reason, /^probed: overlay mount refused \(.+\)$/);
    await assert.rejects(
      chooseStorageDriver(probeDir, 'overlayfs'),
      /^Error: --storage-driver overlayfs: this kernel refuses an overlay mount here \(.+\)$/,
    );
    assert.deepEqual(await chooseStorageDriver(probeDir, 'native'), {
      name: 'native',
      reason: 'forced by --storage-driver',
    });
  });
});
