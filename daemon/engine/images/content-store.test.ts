// The content store as pulls use it: containerd's digest check surfaces as a DigestMismatchError,
// and a cancelled write, whenever it is cancelled, leaves no ingest and throws its abort.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { startTestContainerd, type TestContainerd } from '../../runtime/containerd/test-fixtures';
import { ContentStore } from './content-store';
import { DigestMismatchError, digestOf } from '../../lib/registry-wire/verifying-stream';
import type { Descriptor } from '../../api/manifest-types';

let ctd: TestContainerd;
let store: ContentStore;

const describeBlob = (bytes: Buffer): Descriptor => ({
  mediaType: 'application/octet-stream',
  digest: digestOf(bytes),
  size: bytes.length,
});

before(async () => {
  ctd = await startTestContainerd();
  store = new ContentStore(ctd.client);
});

after(async () => {
  await ctd?.cleanup();
});

describe('ContentStore.write', () => {
  test('content that does not match its digest fails with DigestMismatchError and is not kept', async () => {
    const bytes = randomBytes(10_000);
    const wrong = { ...describeBlob(randomBytes(10_000)), size: bytes.length };
    await assert.rejects(
      store.write(wrong, Readable.from([bytes])),
      (err: unknown) =>
        err instanceof DigestMismatchError &&
        err.expected === wrong.digest &&
        err.actual === digestOf(bytes) &&
        /^digest mismatch: expected sha256:/.test(err.message),
    );
    assert.equal(await store.has(wrong.digest), false);
    assert.deepEqual(await ctd.client.content.listStatuses(), []);
  });

  test('cancelled before containerd opened the ingest: the abort, no ingest, no uncaught error', async () => {
    const bytes = randomBytes(10_000);
    const controller = new AbortController();
    // Nothing listens for errors on this source, as for the configs a pull stores.
    const writing = store.write(describeBlob(bytes), Readable.from([bytes]), controller.signal);
    controller.abort();
    await assert.rejects(writing, { name: 'AbortError' });
    await delay(200);
    assert.deepEqual(await ctd.client.content.listStatuses(), []);
    assert.equal(await store.has(digestOf(bytes)), false);
  });

  test('cancelled mid-stream: the abort, no ingest', async () => {
    const bytes = randomBytes(1 << 20);
    const source = new PassThrough();
    const controller = new AbortController();
    const writing = store.write(describeBlob(bytes), source, controller.signal);
    source.write(bytes.subarray(0, 600 << 10));
    while ((await ctd.client.content.listStatuses()).every((s) => s.offset === 0)) await delay(20);
    controller.abort();
    await assert.rejects(writing, { name: 'AbortError' });
    assert.deepEqual(await ctd.client.content.listStatuses(), []);
    assert.equal(await store.has(digestOf(bytes)), false);
  });
});
