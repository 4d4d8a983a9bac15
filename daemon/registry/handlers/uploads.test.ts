import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { finished } from 'node:stream/promises';
import { sha256 } from '../../lib/digest';
import { http } from '../../testing/http-client';
import { pollUntil } from '../../testing/poll';
import { startUpload } from '../testing/registry-client';
import {
  createTestBucket,
  s3TestEnv,
  startRegistry,
  type RegistryProcess,
  type S3TestTarget,
} from '../testing/registry-process';
import { S3Client } from '../storage/s3-client';
import { paths } from '../storage/paths';
import { S3Driver } from '../storage/s3-driver';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry({ config: { uploads: { expireSeconds: 4, purgeIntervalSeconds: 1 } } });
});
after(() => reg.stop());

const octet = { 'Content-Type': 'application/octet-stream' };

async function patch(location: string, body: Buffer, range?: string) {
  return http(location, {
    method: 'PATCH',
    body,
    headers: range ? { ...octet, 'Content-Range': range } : octet,
  });
}

function errorCodes(res: { json: () => unknown }): string[] {
  return (res.json() as { errors: { code: string }[] }).errors.map((e) => e.code);
}

describe('upload session', () => {
  test('POST starts an upload: 202 with Location, Range, both UUID headers, Content-Length 0', async () => {
    const res = await http(`${reg.url}/v2/up/a/blobs/uploads/`, { method: 'POST' });
    assert.equal(res.status, 202);
    assert.equal(res.headers.range, '0-0');
    assert.equal(res.headers['content-length'], '0');
    const uuid = res.headers['svc-upload-uuid'] as string;
    assert.match(uuid, /^[0-9a-f-]{36}$/);
    assert.equal(res.headers['docker-upload-uuid'], uuid);
    assert.equal(res.headers.location, `${reg.url}/v2/up/a/blobs/uploads/${uuid}`);
  });

  test('chunks in order → 202 + Range; GET status 204; PUT with digest → 201 and the blob is served', async () => {
    const data = randomBytes(300_000);
    const location = await startUpload(reg.url, 'up/b');
    let res = await patch(location, data.subarray(0, 100_000), '0-99999');
    assert.equal(res.status, 202);
    assert.equal(res.headers.range, '0-99999');
    res = await patch(location, data.subarray(100_000, 200_000), '100000-199999');
    assert.equal(res.status, 202);
    assert.equal(res.headers.range, '0-199999');
    res = await http(location);
    assert.equal(res.status, 204);
    assert.equal(res.headers.range, '0-199999');
    assert.equal(res.headers.location, location);
    // The final chunk rides on the PUT, with its Content-Range.
    res = await http(`${location}?digest=${sha256(data)}`, {
      method: 'PUT',
      body: data.subarray(200_000),
      headers: { ...octet, 'Content-Range': '200000-299999' },
    });
    assert.equal(res.status, 201, res.body.toString());
    assert.equal(res.headers['svc-content-digest'], sha256(data));
    assert.equal(res.headers['docker-content-digest'], sha256(data));
    assert.equal(res.headers.location, `${reg.url}/v2/up/b/blobs/${sha256(data)}`);
    const blob = await http(`${reg.url}/v2/up/b/blobs/${sha256(data)}`);
    assert.equal(blob.status, 200);
    assert.ok(blob.body.equals(data));
    // A completed upload id is gone.
    assert.equal((await http(location)).status, 404);
  });

  test('streamed PATCH without Content-Range, then an empty PUT', async () => {
    const data = randomBytes(1 << 20);
    const location = await startUpload(reg.url, 'up/c');
    const res = await patch(location, data);
    assert.equal(res.status, 202);
    assert.equal(res.headers.range, `0-${data.length - 1}`);
    const done = await http(`${location}?digest=${sha256(data)}`, { method: 'PUT' });
    assert.equal(done.status, 201);
  });

  test('an out-of-order chunk gets 416 with the last valid Range, and the upload goes on', async () => {
    const data = randomBytes(2000);
    const location = await startUpload(reg.url, 'up/d');
    assert.equal((await patch(location, data.subarray(0, 1000), '0-999')).status, 202);
    const res = await patch(location, data.subarray(1500), '1500-1999');
    assert.equal(res.status, 416);
    assert.equal(res.headers.range, '0-999');
    assert.equal(res.headers.location, location);
    assert.ok(res.headers['svc-upload-uuid']);
    assert.deepEqual(errorCodes(res), ['RANGE_INVALID']);
    assert.equal((await patch(location, data.subarray(1000), '1000-1999')).status, 202);
    assert.equal((await http(`${location}?digest=${sha256(data)}`, { method: 'PUT' })).status, 201);
  });

  test('an invalid Content-Range gets 416 and leaves the upload unchanged', async () => {
    const location = await startUpload(reg.url, 'up/e');
    for (const range of ['garbage', '10-5', '0-10']) {
      const res = await patch(location, Buffer.alloc(4), range);
      assert.equal(res.status, 416, range);
      assert.equal(res.headers.range, '0-0');
    }
    assert.equal((await http(location)).status, 204);
  });

  test('PUT without digest: 400 and the upload is not complete but still there', async () => {
    const data = Buffer.from('not complete yet');
    const location = await startUpload(reg.url, 'up/f');
    await patch(location, data);
    const res = await http(location, { method: 'PUT' });
    assert.equal(res.status, 400);
    assert.deepEqual(errorCodes(res), ['DIGEST_INVALID']);
    assert.equal((await http(`${reg.url}/v2/up/f/blobs/${sha256(data)}`, { method: 'HEAD' })).status, 404);
    assert.equal((await http(location)).status, 204);
    assert.equal((await http(`${location}?digest=${sha256(data)}`, { method: 'PUT' })).status, 201);
  });

  test('a digest that does not match fails the upload (DIGEST_INVALID, then 404)', async () => {
    const location = await startUpload(reg.url, 'up/g');
    await patch(location, Buffer.from('abc'));
    const res = await http(`${location}?digest=${sha256('abd')}`, { method: 'PUT' });
    assert.equal(res.status, 400);
    assert.deepEqual(errorCodes(res), ['DIGEST_INVALID']);
    const status = await http(location);
    assert.equal(status.status, 404);
    assert.deepEqual(errorCodes(status), ['BLOB_UPLOAD_UNKNOWN']);
    assert.equal((await http(`${reg.url}/v2/up/g/blobs/${sha256('abc')}`, { method: 'HEAD' })).status, 404);
  });

  test('a malformed digest is DIGEST_INVALID and fails the upload', async () => {
    const location = await startUpload(reg.url, 'up/g2');
    const res = await http(`${location}?digest=sha256:xyz`, { method: 'PUT' });
    assert.equal(res.status, 400);
    assert.deepEqual(errorCodes(res), ['DIGEST_INVALID']);
    assert.equal((await http(location)).status, 404);
  });

  test('repeated digest parameters are all verified (sha256 and sha512)', async () => {
    const data = Buffer.from('two digests');
    const s512 = `sha512:${createHash('sha512').update(data).digest('hex')}`;
    let location = await startUpload(reg.url, 'up/h');
    let res = await http(`${location}?digest=${sha256(data)}&digest=${s512}`, { method: 'PUT', body: data });
    assert.equal(res.status, 201);
    assert.equal(res.headers['svc-content-digest'], sha256(data));
    location = await startUpload(reg.url, 'up/h');
    const wrong512 = `sha512:${'0'.repeat(128)}`;
    res = await http(`${location}?digest=${sha256(data)}&digest=${wrong512}`, { method: 'PUT', body: data });
    assert.equal(res.status, 400);
    assert.deepEqual(errorCodes(res), ['DIGEST_INVALID']);
  });

  test('DELETE cancels: 204, then the id is unknown and its data is gone', async () => {
    const location = await startUpload(reg.url, 'up/i');
    await patch(location, Buffer.from('x'));
    const uuid = location.split('/').pop() as string;
    assert.ok(await reg.driver.stat(paths.upload('up/i', uuid)));
    assert.equal((await http(location, { method: 'DELETE' })).status, 204);
    assert.equal(await reg.driver.stat(paths.upload('up/i', uuid)), undefined);
    for (const method of ['GET', 'PATCH', 'PUT', 'DELETE']) {
      const res = await http(`${location}?digest=${sha256('x')}`, {
        method,
        body: method === 'PATCH' ? 'y' : undefined,
      });
      assert.equal(res.status, 404, method);
      assert.deepEqual(errorCodes(res), ['BLOB_UPLOAD_UNKNOWN']);
    }
  });

  test('an unknown or foreign id is BLOB_UPLOAD_UNKNOWN', async () => {
    const location = await startUpload(reg.url, 'up/j');
    const uuid = location.split('/').pop();
    const other = await http(`${reg.url}/v2/up/k/blobs/uploads/${uuid}`);
    assert.equal(other.status, 404);
    assert.deepEqual(errorCodes(other), ['BLOB_UPLOAD_UNKNOWN']);
    const bogus = await http(`${reg.url}/v2/up/j/blobs/uploads/..%2F..%2Fx`);
    assert.equal(bogus.status, 404);
  });

  test('single-request upload: POST with digest and body → 201', async () => {
    const data = randomBytes(5000);
    const res = await http(`${reg.url}/v2/up/l/blobs/uploads/?digest=${sha256(data)}`, {
      method: 'POST',
      body: data,
      headers: octet,
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers['docker-content-digest'], sha256(data));
    assert.ok((await http(`${reg.url}/v2/up/l/blobs/${sha256(data)}`)).body.equals(data));
  });

  test('a whole blob in one PUT is stored under its digest; a wrong digest leaves nothing, staged or stored', async () => {
    // Over two parts of the S3 tests' 5 MiB chunks: on S3 it goes to its place as a multipart upload.
    const data = randomBytes(11 << 20);
    const put = async (digest: string) =>
      http(`${await startUpload(reg.url, 'up/whole')}?digest=${digest}`, {
        method: 'PUT',
        body: data,
        headers: octet,
      });
    const wrong = await put(sha256(Buffer.from('other')));
    assert.equal(wrong.status, 400);
    assert.deepEqual(errorCodes(wrong), ['DIGEST_INVALID']);
    assert.equal(
      (await http(`${reg.url}/v2/up/whole/blobs/${sha256(data)}`, { method: 'HEAD' })).status,
      404,
    );
    assert.equal(await reg.driver.stat(paths.blobData(sha256(Buffer.from('other')))), undefined);
    // Nothing staged is left to purge: the refused upload was dropped, not abandoned.
    assert.equal((await reg.driver.purgeStaged?.(Date.now() + 60_000)) ?? 0, 0);
    const right = await put(sha256(data));
    assert.equal(right.status, 201, right.body.toString());
    assert.ok((await http(`${reg.url}/v2/up/whole/blobs/${sha256(data)}`)).body.equals(data));
    const range = await http(`${reg.url}/v2/up/whole/blobs/${sha256(data)}`, {
      headers: { Range: 'bytes=6291455-6291460' },
    });
    assert.equal(range.status, 206);
    assert.ok(range.body.equals(data.subarray(6291455, 6291461)));
  });

  test('a whole blob that takes longer than the upload expiry to arrive is not cut by the purge loop', async (t) => {
    // On disk, as in Distribution, an upload older than the expiry is purged, request or not.
    if (!(reg.driver instanceof S3Driver)) return t.skip('only a staged blob outlives its upload');
    const data = randomBytes(12 << 20);
    const location = await startUpload(reg.url, 'up/slow');
    const res = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${location}?digest=${sha256(data)}`, {
        method: 'PUT',
        headers: { ...octet, 'Content-Length': String(data.length) },
      });
      req.on('response', (r) => {
        let body = '';
        r.on('data', (c: Buffer) => (body += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, body }));
      });
      req.on('error', reject);
      // Past the first part (S3 then has a multipart upload under way), then a pause beyond the
      // 4 s expiry, with the purge loop passing every second.
      req.write(data.subarray(0, 6 << 20));
      setTimeout(() => req.end(data.subarray(6 << 20)), 6000);
    });
    assert.equal(res.status, 201, res.body);
    assert.ok((await http(`${reg.url}/v2/up/slow/blobs/${sha256(data)}`)).body.equals(data));
  });

  test('a blob staged by a request that died is purged once expired, by the registry itself', async (t) => {
    const driver = reg.driver;
    if (!(driver instanceof S3Driver))
      return t.skip('this store moves uploads by renaming them: nothing is staged');
    const stage = async (on: S3Driver) => {
      const staged = await on.stagedWriter(paths.blobData(sha256(Buffer.from('never committed'))));
      // Over one part: a multipart upload is under way.
      staged.stream.end(randomBytes(6 << 20));
      await finished(staged.stream);
    };
    const staged = async (on: S3Driver) => {
      let count = 0;
      for await (const _ of on.stagedUploads()) count++;
      return count;
    };
    await stage(driver);
    await pollUntil(
      'the purge loop to abort it',
      async () => ((await staged(driver)) === 0 ? true : undefined),
      {
        timeoutMs: 60_000,
        intervalMs: 250,
      },
    );
    // Purged by age: one of a bucket no registry purges waits for its expiry, then goes. Staged
    // by one driver and purged by another, as by a process that restarted: a driver spares its own.
    const bucket = await createTestBucket(JSON.parse(process.env[s3TestEnv]!) as S3TestTarget, 'staged');
    const neighbour = new S3Driver(new S3Client({ ...driver.s3.options, bucket }), driver.options);
    const restarted = new S3Driver(neighbour.s3, driver.options);
    try {
      await stage(neighbour);
      assert.equal(await staged(neighbour), 1);
      assert.equal(await neighbour.purgeStaged(Date.now() + 1000), 0, 'its own, still under way');
      assert.equal(await restarted.purgeStaged(Date.now() - 60_000), 0, 'not before it expired');
      assert.equal(await restarted.purgeStaged(Date.now() + 1000), 1);
      assert.equal(await staged(neighbour), 0);
    } finally {
      neighbour.s3.close();
    }
  });

  test('a client that drops mid-chunk resumes from the offset the registry kept', async () => {
    const data = randomBytes(8 << 20);
    const location = await startUpload(reg.url, 'up/n');
    await new Promise<void>((resolve) => {
      const req = request(location, { method: 'PATCH', headers: octet });
      req.on('error', () => resolve());
      req.write(data.subarray(0, 3 << 20), () => setTimeout(() => req.destroy(), 200));
    });
    // Until the registry has stored what reached it: the same offset twice, 200 ms apart. "0-0" is
    // the empty upload (on S3 the dropped chunk's bytes appear only once stored whole).
    let offset = 0;
    for (let i = 0, last = -1; i < 50 && (offset === 0 || offset !== last); i++) {
      last = offset;
      await new Promise((r) => setTimeout(r, 200));
      const range = (await http(location)).headers.range as string;
      offset = range === '0-0' ? 0 : Number(/^0-(\d+)$/.exec(range)?.[1] ?? -1) + 1;
    }
    assert.ok(offset > 0 && offset <= 3 << 20, `offset ${offset}`);
    const rest = await patch(location, data.subarray(offset), `${offset}-${data.length - 1}`);
    assert.equal(rest.status, 202);
    const done = await http(`${location}?digest=${sha256(data)}`, { method: 'PUT' });
    assert.equal(done.status, 201, done.body.toString());
  });

  test('uploads expire: after the configured time the id is unknown and the data purged', async () => {
    const started = Date.now();
    const location = await startUpload(reg.url, 'up/m');
    await patch(location, Buffer.from('soon gone'));
    const uuid = location.split('/').pop() as string;
    assert.ok(await reg.driver.stat(paths.upload('up/m', uuid)));
    // The purge loop's pass may come late on a busy machine, never early.
    await pollUntil(
      'the purge loop to remove the data',
      async () => ((await reg.driver.stat(paths.upload('up/m', uuid))) ? undefined : true),
      { timeoutMs: 60_000, intervalMs: 250 },
    );
    // Expiry counts from the upload's start as stored (S3 keeps whole seconds): at least 3 of the 4 s.
    assert.ok(Date.now() - started >= 3000, `purged after ${Date.now() - started} ms, before it expired`);
    assert.equal((await http(location)).status, 404);
  });
});
