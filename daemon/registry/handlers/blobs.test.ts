import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readlinkSync } from 'node:fs';
import { mkdtemp, readdir, rm, truncate } from 'node:fs/promises';
import { get as httpGet } from 'node:http';
import { get as httpsGet } from 'node:https';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { digestHex, sha256 } from '../../lib/digest';
import { http, type HttpResponse } from '../../testing/http-client';
import { makePki } from '../../testing/test-pki';
import { pushBlob } from '../testing/registry-client';
import { startRegistry, testStorage, type RegistryProcess } from '../testing/registry-process';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

/** What a process has open (the targets of /proc/PID/fd). */
function openFiles(pid: number): string[] {
  const dir = `/proc/${pid}/fd`;
  return readdirSync(dir).flatMap((fd) => {
    try {
      return [readlinkSync(join(dir, fd))];
    } catch {
      return []; // closed while listed
    }
  });
}

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

// A plain connection gets a blob from the native sender's thread: a local file written from a
// mapping of it, an object store's answer spliced from the store's socket (this file also runs on
// S3); TLS gets it in pooled 1 MiB pieces read ahead of the socket, or the store's answer piped.
// Both are checked the same way: the pieces' seams, more pulls at once than the pool holds, and
// clients that leave mid-body (a buffer or transfer not given back would leave later pulls
// waiting forever).
const bodyData = randomBytes(5 * (1 << 20) + 123);

for (const transport of ['plain', 'tls'] as const)
  describe(`blob bodies at size, ${transport === 'plain' ? 'sent by the kernel' : 'over TLS, read in pieces'}`, () => {
    let server: RegistryProcess;
    let scratch: string;
    let url: string;
    before(async () => {
      if (transport === 'plain') server = reg;
      else {
        // The blob is pushed in the clear, then the same data dir is served over TLS.
        scratch = await mkdtemp(join(tmpdir(), 'svc-registry-tls-'));
        const plain = await startRegistry({ dataDir: scratch });
        await pushBlob(plain.url, 'b/big', bodyData);
        await plain.stop();
        const pki = await makePki(scratch);
        server = await startRegistry({
          dataDir: scratch,
          config: { tls: { certificate: pki.serverCert, key: pki.serverKey } },
        });
      }
      url = `${server.url}/v2/b/big/blobs/${await (transport === 'plain' ? pushBlob(reg.url, 'b/big', bodyData) : sha256(bodyData))}`;
    });
    after(async () => {
      if (transport === 'plain') return;
      await server.stop();
      await rm(scratch, { recursive: true, force: true });
    });

    /** A GET on a socket of its own; `leaveAfter` bytes, then the client hangs up. */
    function pull(headers: Record<string, string> = {}, leaveAfter?: number): Promise<Buffer> {
      return new Promise((resolve, reject) => {
        const get = transport === 'plain' ? httpGet : httpsGet;
        // The test PKI's certificate names 127.0.0.2: these tests are about the bytes, not TLS.
        const req = get(url, { agent: false, headers, rejectUnauthorized: false }, (res) => {
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
      assert.ok((await pull()).equals(bodyData));
      const [start, end] = [(1 << 20) - 5, 3 * (1 << 20) + 7];
      assert.ok((await pull({ Range: `bytes=${start}-${end}` })).equals(bodyData.subarray(start, end + 1)));
    });

    test('40 pulls at once all get every byte', async () => {
      const bodies = await Promise.all(Array.from({ length: 40 }, () => pull()));
      assert.equal(bodies.filter((b) => b.equals(bodyData)).length, 40);
    });

    test(
      '30 clients hanging up mid-body leave the registry serving whole blobs, holding no file open',
      { timeout: 60_000 },
      async () => {
        const blobFiles = () => openFiles(server.child.pid!).filter((f) => f.includes('/blobs/')).length;
        for (let i = 0; i < 30; i++) await pull({}, 64 * 1024);
        const bodies = await Promise.all(Array.from({ length: 20 }, () => pull()));
        assert.equal(bodies.filter((b) => b.equals(bodyData)).length, 20);
        // Hang-ups are noticed when the registry next writes: give it a moment.
        for (let i = 0; i < 50 && blobFiles() > 0; i++) await new Promise((r) => setTimeout(r, 100));
        assert.equal(blobFiles(), 0, 'every pull closed its blob file');
      },
    );
  });

test(
  'a blob file cut short on disk while it is served: the body ends early, the registry serves on',
  { skip: testStorage() === 's3' && 'the blob is in the object store' },
  async () => {
    const size = 32 << 20;
    const digest = await pushBlob(reg.url, 'c/cut', randomBytes(size));
    const files = await readdir(reg.dataDir, { recursive: true });
    const file = files.find((f) => f.endsWith(`${digestHex(digest)}/data`));
    assert.ok(file, 'the blob file is on disk');
    const got = await new Promise<{ length: string | undefined; bytes: number; complete: boolean }>(
      (resolve, reject) => {
        httpGet(`${reg.url}/v2/c/cut/blobs/${digest}`, { agent: false }, (res) => {
          let bytes = 0;
          // The first bytes are in: the file is cut under the transfer, then the rest is read.
          res.once('data', () => {
            res.pause();
            truncate(join(reg.dataDir, file), 1 << 20).then(() => res.resume(), reject);
          });
          res.on('data', (chunk: Buffer) => (bytes += chunk.length));
          res.on('close', () =>
            resolve({ length: res.headers['content-length'], bytes, complete: res.complete }),
          );
        }).on('error', reject);
      },
    );
    assert.equal(got.length, String(size));
    assert.equal(got.complete, false, 'the response is cut, not ended as if whole');
    assert.ok(got.bytes < size, `${got.bytes} bytes of ${size}`);
    const other = randomBytes(100_000);
    const res = await http(`${reg.url}/v2/c/cut/blobs/${await pushBlob(reg.url, 'c/cut', other)}`);
    assert.ok(res.body.equals(other), 'another blob is served whole');
  },
);

describe('clients that stop reading', () => {
  let slow: RegistryProcess;
  let digest: string;
  // Far more than a client's socket buffers take while it reads nothing.
  const data = randomBytes(32 * (1 << 20));
  before(async () => {
    slow = await startRegistry({ config: { idleTimeoutSeconds: 1 } });
    digest = await pushBlob(slow.url, 'b/slow', data);
  });
  after(() => slow.stop());

  /**
   * A GET whose client reads nothing after the first bytes for `pauseMs`, then everything:
   * the bytes it got and whether the registry had ended the connection.
   */
  function stalledPull(pauseMs: number): Promise<{ bytes: number; ended: boolean }> {
    return new Promise((resolve) => {
      const socket = connect(slow.port, '127.0.0.1', () =>
        socket.write(`GET /v2/b/slow/blobs/${digest} HTTP/1.1\r\nHost: x\r\n\r\n`),
      );
      let bytes = 0;
      socket.on('data', (chunk: Buffer) => (bytes += chunk.length));
      socket.once('data', () => {
        socket.pause();
        setTimeout(() => socket.resume(), pauseMs);
      });
      // A whole body leaves a kept-alive connection open: the test stops waiting then.
      const giveUp = setTimeout(() => socket.destroy(), pauseMs + 10_000);
      socket.on('close', () => {
        clearTimeout(giveUp);
        resolve({ bytes, ended: socket.readableEnded });
      });
    });
  }

  test(
    'a pull that takes nothing for idleTimeoutSeconds is cut; one reading slowly for longer gets every byte',
    { timeout: 60_000 },
    async () => {
      const stalled = await stalledPull(4000);
      assert.equal(stalled.ended, true, 'the registry ended the stalled connection');
      assert.ok(stalled.bytes < data.length, `cut after ${stalled.bytes} bytes`);
      // 32 MiB at 4 MiB every 400 ms: over 3 s in all, never a second without progress.
      const body = await new Promise<Buffer>((resolve, reject) => {
        httpGet(`${slow.url}/v2/b/slow/blobs/${digest}`, { agent: false }, (res) => {
          const chunks: Buffer[] = [];
          let sinceBreak = 0;
          res.on('data', (chunk: Buffer) => {
            chunks.push(chunk);
            sinceBreak += chunk.length;
            if (sinceBreak >= 4 << 20) {
              sinceBreak = 0;
              res.pause();
              setTimeout(() => res.resume(), 400);
            }
          });
          res.on('end', () => resolve(Buffer.concat(chunks)));
          res.on('error', reject);
        }).on('error', reject);
      });
      assert.ok(body.equals(data), `the slow pull got ${body.length} of ${data.length} bytes, intact`);
    },
  );
});

describe('redirects', () => {
  let redirecting: RegistryProcess;
  before(async () => {
    redirecting = await startRegistry({ config: { redirect: true } });
  });
  after(() => redirecting.stop());

  test('with redirects on, a blob GET on S3 is a 307 to the store; on disk the registry serves it', async () => {
    const data = randomBytes(300_000);
    const digest = await pushBlob(redirecting.url, 'b/redirect', data);
    const res = await http(`${redirecting.url}/v2/b/redirect/blobs/${digest}`);
    if (testStorage() === 's3') {
      assert.equal(res.status, 307);
      const location = new URL(res.headers.location as string);
      assert.equal(location.hostname, '127.0.0.1');
      assert.match(location.search, /X-Amz-Signature=/);
      const direct = await http(location.toString(), { headers: { Range: 'bytes=10-19' } });
      assert.equal(direct.status, 206);
      assert.ok(direct.body.equals(data.subarray(10, 20)), 'the store serves the blob, ranges too');
      assert.ok((await http(location.toString())).body.equals(data));
    } else {
      assert.equal(res.status, 200);
      assert.ok(res.body.equals(data));
    }
    const head = await http(`${redirecting.url}/v2/b/redirect/blobs/${digest}`, { method: 'HEAD' });
    assert.equal(head.status, 200, 'HEAD answers from the metadata');
    assert.equal(head.headers['content-length'], String(data.length));
  });
});
