// The registry on a 24 MiB tmpfs: uploads and manifests that do not fit answer 507 naming "no
// space left on device", leave no partial blob and give their space back; what was stored
// before is still served, and pushes work again once space is freed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256 } from '../../lib/digest';
import { http, type HttpResponse } from '../../testing/http-client';
import { mountSmallTmpfs, type SmallTmpfs } from '../../testing/small-tmpfs';
import {
  pushBlob,
  pushSmallImage,
  putManifest,
  startUpload,
  withDigest,
  type Descriptor,
} from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { paths } from './paths';

const MiB = 1 << 20;
const repo = 'full/app';

let disk: SmallTmpfs | undefined;
let reg: RegistryProcess | undefined;
before(async () => {
  disk = await mountSmallTmpfs(24);
  reg = await startRegistry({ dataDir: disk.dir });
});
after(async () => {
  await reg?.stop();
  await disk?.dispose();
});

function expectNoSpace(res: HttpResponse, what: string): void {
  assert.equal(res.status, 507, `${what}: ${res.status} ${res.body.toString()}`);
  const { errors } = res.json<{ errors: Array<{ code: string; message: string }> }>();
  assert.equal(errors[0].code, 'UNKNOWN', what);
  assert.match(errors[0].message, /no space left on device/, what);
}

/** Every file in the blob store: one data file per blob, nothing partial beside them. */
function storedBlobs(): string[] {
  const root = join(reg!.dataDir, paths.blobsRoot());
  return readdirSync(root, { recursive: true, withFileTypes: true })
    .filter((e) => !e.isDirectory())
    .map((e) => join(e.parentPath, e.name).slice(root.length + 1))
    .sort();
}

function uploadsLeft(): string[] {
  return readdirSync(join(reg!.dataDir, paths.uploadsDir(repo)));
}

test('a full disk: 507 naming the cause, no partial blob, reads go on, pushes resume once space is freed', async () => {
  const { url } = reg!;
  const manifest = await pushSmallImage(url, repo, 'before');
  assert.equal((await putManifest(url, repo, 'before', manifest)).status, 201);
  const blobsBefore = storedBlobs();
  const freeBefore = disk!.free();

  // One PUT carrying a blob larger than the whole disk.
  const big = randomBytes(32 * MiB);
  const location = await startUpload(url, repo);
  expectNoSpace(
    await http(withDigest(location, sha256(big)), {
      method: 'PUT',
      body: big,
      headers: { 'Content-Type': 'application/octet-stream' },
    }),
    'monolithic upload',
  );
  // Chunks: the first fit, the one that does not fit fails the upload.
  const chunked = await startUpload(url, repo);
  let failed: HttpResponse | undefined;
  for (let start = 0; !failed; start += 4 * MiB) {
    const res = await http(chunked, {
      method: 'PATCH',
      body: big.subarray(start, start + 4 * MiB),
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Range': `${start}-${start + 4 * MiB - 1}`,
      },
    });
    if (res.status !== 202) failed = res;
  }
  expectNoSpace(failed, 'chunk');
  assert.equal((await http(chunked)).status, 404, 'the failed upload is gone');

  assert.deepEqual(storedBlobs(), blobsBefore, 'no partial blob');
  assert.equal((await http(`${url}/v2/${repo}/blobs/${sha256(big)}`, { method: 'HEAD' })).status, 404);
  assert.deepEqual(uploadsLeft(), [], 'the failed uploads gave their space back');
  assert.ok(disk!.free() >= freeBefore - MiB, `free ${disk!.free()} of ${freeBefore} before`);

  // Full to the last byte: a manifest does not fit either; what was stored is still served.
  const ballast = join(disk!.dir, 'ballast');
  disk!.fill(ballast);
  const other = Buffer.from(manifest.toString().replace('"schemaVersion"', '"extra":1,"schemaVersion"'));
  expectNoSpace(await putManifest(url, repo, 'after', other), 'manifest');
  expectNoSpace(await http(`${url}/v2/${repo}/blobs/uploads/`, { method: 'POST' }), 'starting an upload');
  assert.deepEqual(uploadsLeft(), [], 'nothing left of the upload that could not start');
  const served = await http(`${url}/v2/${repo}/manifests/before`);
  assert.equal(served.status, 200);
  assert.ok(served.body.equals(manifest));
  const { config, layers } = JSON.parse(manifest.toString()) as { config: Descriptor; layers: Descriptor[] };
  for (const { digest } of [config, ...layers]) {
    const blob = await http(`${url}/v2/${repo}/blobs/${digest}`);
    assert.equal(blob.status, 200, digest);
    assert.equal(sha256(blob.body), digest);
  }
  assert.deepEqual(storedBlobs(), blobsBefore, 'no part of the manifest that did not fit');
  assert.deepEqual(
    (await http(`${url}/v2/${repo}/tags/list`)).json<{ tags: string[] }>().tags,
    ['before'],
    'the manifest that did not fit is not tagged',
  );

  // Space freed: the same pushes go through.
  await rm(ballast);
  const blob = big.subarray(0, 8 * MiB);
  assert.equal(await pushBlob(url, repo, blob), sha256(blob));
  assert.equal((await putManifest(url, repo, 'after', other)).status, 201);
  assert.ok((await http(`${url}/v2/${repo}/manifests/after`)).body.equals(other));
});
