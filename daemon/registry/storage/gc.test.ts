import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { repoRoot } from '../../lib/product';
import { sha256, type Digest } from '../../lib/digest';
import { http } from '../../testing/http-client';
import { pushBlob, pushSmallImage, putManifest } from '../testing/registry-client';
import { registryCommand, startRegistry, type RegistryProcess } from '../testing/registry-process';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

async function blobDigests(dataDir: string): Promise<Digest[]> {
  const files = (await readdir(join(dataDir, 'blobs'), { recursive: true })).map(String);
  return files.filter((f) => f.endsWith('/data')).map((f) => `sha256:${f.split('/').at(-2)}` as Digest);
}

/** Makes every blob look older than gc's grace period. */
async function ageBlobs(dataDir: string): Promise<void> {
  const old = new Date(Date.now() - 2 * 3600 * 1000);
  for (const d of await blobDigests(dataDir)) {
    const hex = d.slice(7);
    await utimes(join(dataDir, 'blobs/sha256', hex.slice(0, 2), hex, 'data'), old, old);
  }
}

function gc(args: string[]) {
  return spawnSync(process.execPath, registryCommand(['gc', '--data', reg.dataDir, ...args]), {
    cwd: repoRoot(),
    encoding: 'utf8',
  });
}

test('gc removes blobs no manifest references, spares recent ones, --dry-run changes nothing', async () => {
  const kept = await pushSmallImage(reg.url, 'gc/a', 'kept');
  await putManifest(reg.url, 'gc/a', 'kept', kept);
  const dropped = await pushSmallImage(reg.url, 'gc/a', 'dropped');
  await putManifest(reg.url, 'gc/a', 'dropped', dropped);
  assert.equal(
    (await http(`${reg.url}/v2/gc/a/manifests/${sha256(dropped)}`, { method: 'DELETE' })).status,
    202,
  );
  const orphan = await pushBlob(reg.url, 'gc/b', Buffer.from('never referenced'));
  await ageBlobs(reg.dataDir);
  const fresh = await pushBlob(reg.url, 'gc/b', Buffer.from('pushed just now'));

  const droppedDoc = JSON.parse(dropped.toString());
  const garbage = [sha256(dropped), droppedDoc.config.digest, droppedDoc.layers[0].digest, orphan].sort();
  const before = await blobDigests(reg.dataDir);

  const dry = gc(['--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  for (const d of garbage) assert.match(dry.stdout, new RegExp(`would delete blob ${d}`));
  assert.deepEqual((await blobDigests(reg.dataDir)).sort(), before.sort());

  const real = gc([]);
  assert.equal(real.status, 0, real.stderr);
  assert.match(real.stdout, /4 deleted/);
  const after = await blobDigests(reg.dataDir);
  for (const d of garbage) assert.equal(after.includes(d), false, d);
  assert.ok(after.includes(fresh), 'a blob younger than the grace period is spared');

  // The kept image is whole.
  const manifest = await http(`${reg.url}/v2/gc/a/manifests/kept`);
  assert.equal(manifest.status, 200);
  const doc = JSON.parse(manifest.body.toString());
  for (const d of [doc.config.digest, doc.layers[0].digest]) {
    assert.equal((await http(`${reg.url}/v2/gc/a/blobs/${d}`)).status, 200);
  }
  assert.equal((await http(`${reg.url}/v2/gc/b/blobs/${orphan}`, { method: 'HEAD' })).status, 404);
});
