// kill -9 of the registry in the middle of a 200 MiB upload, then a restart on the same data.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { sha256, type Digest } from '../../lib/digest';
import { http } from '../../testing/http-client';
import { startUpload } from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { paths } from './paths';

const MiB = 1 << 20;
const total = 200 * MiB;
const base = randomBytes(MiB);

/** The test content: 1 MiB blocks, each stamped with its index so no two are alike. */
function block(i: number): Buffer {
  const b = Buffer.from(base);
  b.writeUInt32BE(i, 0);
  return b;
}

function* content(start: number): Generator<Buffer> {
  for (let i = Math.floor(start / MiB); i * MiB < total; i++) {
    const b = block(i);
    yield i * MiB < start ? b.subarray(start - i * MiB) : b;
  }
}

function digestOfAll(): Digest {
  const h = createHash('sha256');
  for (const b of content(0)) h.update(b);
  return `sha256:${h.digest('hex')}`;
}

async function filesUnder(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir, { recursive: true })).map(String);
  } catch {
    return [];
  }
}

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(async () => {
  // The restarted registry was given the data dir, so it is ours to remove.
  await reg.stop();
  await rm(reg.dataDir, { recursive: true, force: true });
});

test('kill -9 during a 200 MiB upload: nothing partial visible, the upload resumes after restart', async () => {
  const digest = digestOfAll();
  const location = await startUpload(reg.url, 'crash/test');
  const uuid = location.split('/').pop() as string;
  const uploadFile = join(reg.dataDir, paths.uploadData('crash/test', uuid));

  // Stream the whole blob in one PATCH and kill the registry once ~100 MiB have reached the disk.
  const sending = new Promise<void>((resolve) => {
    const req = request(location, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/octet-stream' },
    });
    req.on('error', () => resolve());
    req.on('response', (res) => {
      res.resume();
      resolve();
    });
    Readable.from(content(0)).pipe(req);
  });
  for (let i = 0; i < 600; i++) {
    const size = (await stat(uploadFile).catch(() => undefined))?.size ?? 0;
    if (size >= 100 * MiB) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  await reg.kill();
  await sending;

  // After the crash: no blob, no stray files in the blob store.
  const dataDir = reg.dataDir;
  assert.deepEqual(await filesUnder(join(dataDir, 'blobs')), []);
  reg = await startRegistry({ dataDir });
  const head = await http(`${reg.url}/v2/crash/test/blobs/${digest}`, { method: 'HEAD' });
  assert.equal(head.status, 404);

  // The upload is still known, at the offset that reached the disk.
  const resumed = location.replace(/^http:\/\/[^/]+/, reg.url);
  const status = await http(resumed);
  assert.equal(status.status, 204);
  const m = /^0-(\d+)$/.exec(status.headers.range as string);
  assert.ok(m, `range ${status.headers.range}`);
  const offset = Number(m[1]) + 1;
  assert.ok(offset >= 100 * MiB && offset < total, `offset ${offset}`);

  // Resume from there with a Content-Range chunk, then complete.
  const rest = await new Promise<number>((resolve, reject) => {
    const req = request(resumed, {
      method: 'PATCH',
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Range': `${offset}-${total - 1}`,
        'Content-Length': total - offset,
      },
    });
    req.on('error', reject);
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    Readable.from(content(offset)).pipe(req);
  });
  assert.equal(rest, 202);
  const done = await http(`${resumed}?digest=${digest}`, { method: 'PUT' });
  assert.equal(done.status, 201, done.body.toString());
  const final = await http(`${reg.url}/v2/crash/test/blobs/${digest}`, { method: 'HEAD' });
  assert.equal(final.status, 200);
  assert.equal(final.headers['content-length'], String(total));

  // Restarting from scratch also works: a fresh upload of the same name.
  const again = await startUpload(reg.url, 'crash/test');
  assert.equal((await http(again)).status, 204);
});

// The state a kill leaves between the commit's move into the blob store and its link (the fault
// loop found such uploads lost): the upload has its `committed` note and no data, the blob is in
// the store. Staged on disk here, with the registry stopped, since a kill cannot be aimed there.
test('a commit cut between the move and the link: the upload reports its whole size and a retried PUT finishes it', async () => {
  const blob = randomBytes(3000);
  const digest = sha256(blob);
  const location = await startUpload(reg.url, 'crash/cut');
  const uuid = location.split('/').pop() as string;
  const patched = await http(location, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/octet-stream' },
    body: blob,
  });
  assert.equal(patched.status, 202);
  await reg.kill();
  const stored = join(reg.dataDir, paths.blobData(digest));
  await mkdir(dirname(stored), { recursive: true });
  await writeFile(join(reg.dataDir, paths.uploadCommitted('crash/cut', uuid)), digest);
  await rename(join(reg.dataDir, paths.uploadData('crash/cut', uuid)), stored);
  reg = await startRegistry({ dataDir: reg.dataDir });

  const resumed = location.replace(/^http:\/\/[^/]+/, reg.url);
  const status = await http(resumed);
  assert.equal(status.status, 204);
  assert.equal(status.headers.range, `0-${blob.length - 1}`);
  assert.equal((await http(`${reg.url}/v2/crash/cut/blobs/${digest}`)).status, 404, 'not linked yet');
  const done = await http(`${resumed}?digest=${digest}`, { method: 'PUT' });
  assert.equal(done.status, 201, done.body.toString());
  const pulled = await http(`${reg.url}/v2/crash/cut/blobs/${digest}`);
  assert.ok(pulled.body.equals(blob));
  assert.deepEqual(await filesUnder(join(reg.dataDir, paths.uploadsDir('crash/cut'))), []);
});
