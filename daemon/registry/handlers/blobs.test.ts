import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { get as httpGet } from 'node:http';
import { sha256 } from '../../lib/digest';
import { http, type HttpResponse } from '../../testing/http-client';
import { pushBlob } from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

function errors(res: HttpResponse): { code: string; detail?: Record<string, unknown> }[] {
  return res.json<{ errors: { code: string; detail?: Record<string, unknown> }[] }>().errors;
}

describe('blobs', () => {
  const data = randomBytes(10_000);
  let digest: string;
  before(async () => {
    digest = await pushBlob(reg.url, 'b/a', data);
  });

  test('GET: 200, body, digest headers, ETag, Cache-Control; HEAD: length and digest, no body', async () => {
    const res = await http(`${reg.url}/v2/b/a/blobs/${digest}`);
    assert.equal(res.status, 200);
    assert.ok(res.body.equals(data));
    assert.equal(res.headers['svc-content-digest'], digest);
    assert.equal(res.headers['docker-content-digest'], digest);
    assert.equal(res.headers.etag, `"${digest}"`);
    assert.match(res.headers['cache-control'] as string, /max-age=\d+/);
    const head = await http(`${reg.url}/v2/b/a/blobs/${digest}`, { method: 'HEAD' });
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], '10000');
    assert.equal(head.headers['docker-content-digest'], digest);
    assert.equal(head.body.length, 0);
  });

  test('If-None-Match with the ETag: 304', async () => {
    const res = await http(`${reg.url}/v2/b/a/blobs/${digest}`, {
      headers: { 'If-None-Match': `"${digest}"` },
    });
    assert.equal(res.status, 304);
    assert.equal(res.body.length, 0);
  });

  test('Range: 206 with Content-Range for start-end, open end and suffix; 416 when unsatisfiable', async () => {
    const get = (range: string) => http(`${reg.url}/v2/b/a/blobs/${digest}`, { headers: { Range: range } });
    let res = await get('bytes=10-19');
    assert.equal(res.status, 206);
    assert.equal(res.headers['content-range'], 'bytes 10-19/10000');
    assert.ok(res.body.equals(data.subarray(10, 20)));
    res = await get('bytes=9990-');
    assert.ok(res.body.equals(data.subarray(9990)));
    res = await get('bytes=-5');
    assert.ok(res.body.equals(data.subarray(9995)));
    res = await get('bytes=20000-');
    assert.equal(res.status, 416);
    assert.equal(res.headers['content-range'], 'bytes */10000');
  });

  test('unknown blob: 404 BLOB_UNKNOWN with detail.digest; bad digest: DIGEST_INVALID', async () => {
    const missing = sha256('missing');
    const res = await http(`${reg.url}/v2/b/a/blobs/${missing}`);
    assert.equal(res.status, 404);
    assert.deepEqual(errors(res), [
      { code: 'BLOB_UNKNOWN', message: 'blob unknown to registry', detail: { digest: missing } },
    ]);
    const other = await http(`${reg.url}/v2/b/other/blobs/${digest}`, { method: 'HEAD' });
    assert.equal(other.status, 404, 'blobs are visible only in repositories that link them');
    const bad = await http(`${reg.url}/v2/b/a/blobs/sha256:zz`);
    assert.equal(bad.status, 400);
    assert.equal(errors(bad)[0].code, 'DIGEST_INVALID');
  });

  test('DELETE: 202, then 404', async () => {
    const d = await pushBlob(reg.url, 'b/del', Buffer.from('delete me'));
    assert.equal((await http(`${reg.url}/v2/b/del/blobs/${d}`, { method: 'DELETE' })).status, 202);
    assert.equal((await http(`${reg.url}/v2/b/del/blobs/${d}`, { method: 'HEAD' })).status, 404);
    const again = await http(`${reg.url}/v2/b/del/blobs/${d}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.equal(errors(again)[0].code, 'BLOB_UNKNOWN');
  });

  test('cross-repository mount: 201 with Location and digest; 202 fallback when absent or bad', async () => {
    const res = await http(`${reg.url}/v2/b/mounted/blobs/uploads/?mount=${digest}&from=b/a`, {
      method: 'POST',
    });
    assert.equal(res.status, 201);
    assert.equal(res.headers.location, `${reg.url}/v2/b/mounted/blobs/${digest}`);
    assert.equal(res.headers['svc-content-digest'], digest);
    assert.equal(res.headers['content-length'], '0');
    assert.equal((await http(`${reg.url}/v2/b/mounted/blobs/${digest}`, { method: 'HEAD' })).status, 200);
    for (const query of [
      `mount=${sha256('absent')}&from=b/a`,
      `mount=${digest}&from=NOT_VALID`,
      `mount=nonsense&from=b/a`,
    ]) {
      const fallback = await http(`${reg.url}/v2/b/m2/blobs/uploads/?${query}`, { method: 'POST' });
      assert.equal(fallback.status, 202, query);
      assert.ok(fallback.headers['svc-upload-uuid'], query);
    }
  });

  test('names: multi-component accepted; invalid names and 256+ characters are NAME_INVALID', async () => {
    const long = `${'a'.repeat(200)}/${'b'.repeat(55)}`;
    assert.equal(long.length, 256);
    for (const name of ['Upper', 'a__b', '-a', 'a/', 'a//b', long]) {
      const res = await http(`${reg.url}/v2/${name}/blobs/${digest}`);
      assert.equal(res.status, 400, name);
      assert.equal(errors(res)[0].code, 'NAME_INVALID', name);
    }
    const ok = `${'a'.repeat(200)}/${'b'.repeat(54)}`;
    assert.equal(
      (await http(`${reg.url}/v2/${ok}/blobs/${digest}`)).status,
      404,
      '255 characters is a valid name',
    );
    assert.ok(await pushBlob(reg.url, 'a/b-c/d.e/f_g/x', Buffer.from('deep')));
  });
});

// Bodies go out in pooled 1 MiB pieces read ahead of the socket: these check the pieces' seams,
// more pulls at once than the pool holds, and clients that leave mid-body (a buffer not given
// back would leave later pulls waiting forever).
describe('blob bodies at size', () => {
  const data = randomBytes(5 * (1 << 20) + 123);
  let url: string;
  before(async () => {
    url = `${reg.url}/v2/b/big/blobs/${await pushBlob(reg.url, 'b/big', data)}`;
  });

  /** A GET on a socket of its own; `leaveAfter` bytes, then the client hangs up. */
  function pull(headers: Record<string, string> = {}, leaveAfter?: number): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const req = httpGet(url, { agent: false, headers }, (res) => {
        const chunks: Buffer[] = [];
        let received = 0;
        res.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          received += chunk.length;
          if (leaveAfter !== undefined && received >= leaveAfter) {
            req.destroy();
            resolve(Buffer.concat(chunks));
          }
        });
        res.on('end', () => resolve(Buffer.concat(chunks)));
        res.on('error', reject);
      });
      req.on('error', (err) => (leaveAfter === undefined ? reject(err) : undefined));
    });
  }

  test('whole, and a range across piece boundaries, byte for byte', async () => {
    assert.ok((await pull()).equals(data));
    const [start, end] = [(1 << 20) - 5, 3 * (1 << 20) + 7];
    assert.ok((await pull({ Range: `bytes=${start}-${end}` })).equals(data.subarray(start, end + 1)));
  });

  test('40 pulls at once all get every byte', async () => {
    const bodies = await Promise.all(Array.from({ length: 40 }, () => pull()));
    assert.equal(bodies.filter((b) => b.equals(data)).length, 40);
  });

  test(
    '30 clients hanging up mid-body leave the registry serving whole blobs',
    { timeout: 60_000 },
    async () => {
      for (let i = 0; i < 30; i++) await pull({}, 64 * 1024);
      const bodies = await Promise.all(Array.from({ length: 20 }, () => pull()));
      assert.equal(bodies.filter((b) => b.equals(data)).length, 20);
    },
  );
});
