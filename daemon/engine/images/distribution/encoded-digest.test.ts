// A manifest digest sent percent-encoded (`sha256%3A…`, as a browser's encodeURIComponent writes
// it) reads as the digest in svc-registry exactly as in Distribution 2.8, which decodes its path:
// the same requests, the same statuses and error codes, on both.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { sha256 } from '../../../lib/digest';
import { http } from '../../../testing/http-client';
import { pushSmallImage, putManifest } from '../../../registry/testing/registry-client';
import { startRegistry, type RegistryProcess } from '../../../registry/testing/registry-process';
import { startDistribution, type Distribution } from '../../../testing/distribution';

let ours: RegistryProcess;
let theirs: Distribution;

before(async () => {
  [ours, theirs] = await Promise.all([startRegistry(), startDistribution()]);
});
after(async () => {
  await Promise.all([ours?.stop(), theirs?.stop()]);
});

/** The statuses (and error codes) of one session of encoded-digest requests on a registry. */
async function session(base: string): Promise<string[]> {
  const body = await pushSmallImage(base, 'enc/a', 'encoded');
  await putManifest(base, 'enc/a', 'v1', body);
  const encoded = encodeURIComponent(sha256(body));
  assert.match(encoded, /%3A/);
  const answer = async (path: string, method = 'GET') => {
    const res = await http(`${base}/v2/enc/a/manifests/${path}`, { method });
    const codes =
      res.status >= 400 ? (res.json<{ errors?: { code: string }[] }>().errors ?? []).map((e) => e.code) : [];
    return `${method} ${path === encoded ? 'encoded' : path} ${res.status} ${codes.join(',')}`.trim();
  };
  return [
    await answer(encoded),
    await answer(encoded, 'HEAD'),
    await answer(encoded, 'DELETE'),
    await answer(encoded),
    await answer('sha256%3Azz', 'DELETE'),
  ];
}

test('encoded digests: svc-registry answers as Distribution 2.8', async () => {
  const theirAnswers = await session(theirs.url);
  assert.deepEqual(await session(ours.url), theirAnswers);
  assert.match(theirAnswers[2], /^DELETE encoded 202/);
});
