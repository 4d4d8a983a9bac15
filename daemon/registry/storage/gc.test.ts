import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../../lib/product';
import { sha256, type Digest } from '../../lib/digest';
import { http } from '../../testing/http-client';
import { pushBlob, pushSmallImage, putManifest } from '../testing/registry-client';
import { registryCommand, startRegistry, type RegistryProcess } from '../testing/registry-process';
import { filesUnder } from '../testing/stored-files';
import { paths } from './paths';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

async function blobDigests(): Promise<Digest[]> {
  const files = await filesUnder(reg.driver, paths.blobsRoot());
  return files.filter((f) => f.endsWith('/data')).map((f) => `sha256:${f.split('/').at(-2)}` as Digest);
}

// Blobs older than this are garbage once unreferenced. The suite waits past it rather than
// ageing files, which an object store cannot do (its times are the server's, to the second).
const grace = 10;

function gc(args: string[]) {
  return spawnSync(
    process.execPath,
    registryCommand(['gc', ...reg.storageArgs, '--grace-period', `${grace}s`, ...args]),
    { cwd: repoRoot(), encoding: 'utf8' },
  );
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
  await new Promise((r) => setTimeout(r, (grace + 1.5) * 1000));

  const droppedDoc = JSON.parse(dropped.toString());
  const garbage = [sha256(dropped), droppedDoc.config.digest, droppedDoc.layers[0].digest, orphan].sort();
  const before = await blobDigests();

  const dry = gc(['--dry-run']);
  assert.equal(dry.status, 0, dry.stderr);
  for (const d of garbage) assert.match(dry.stdout, new RegExp(`would delete blob ${d}`));
  assert.deepEqual((await blobDigests()).sort(), before.sort());

  const fresh = await pushBlob(reg.url, 'gc/b', Buffer.from('pushed just now'));
  const real = gc([]);
  assert.equal(real.status, 0, real.stderr);
  assert.match(real.stdout, /4 deleted/);
  const after = await blobDigests();
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
