// A digest sent percent-encoded in a manifest or blob path ("sha256%3A…"), answered by
// svc-registry as by Distribution 2.8 (Debian's docker-registry) beside it: status and error codes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { sha256 } from '../lib/digest';
import { http, type HttpResponse } from '../testing/http-client';
import { startDistribution, type Distribution } from '../engine/images/distribution/testing/distribution';
import { pushSmallImage, putManifest } from './testing/registry-client';
import { startRegistry, type RegistryProcess } from './testing/registry-process';

/** What a client reads of an answer: the status and the error codes, if any. */
function answer(res: HttpResponse): string {
  const text = res.text();
  let codes: string[] = [];
  try {
    codes = (JSON.parse(text) as { errors?: { code: string }[] }).errors?.map((e) => e.code) ?? [];
  } catch {
    // Not JSON: the status says it all.
  }
  return [res.status, ...codes].join(' ');
}

describe(
  'percent-encoded digests beside Distribution 2.8',
  { skip: existsSync('/usr/bin/docker-registry') ? undefined : 'docker-registry is not installed' },
  () => {
    let ours: RegistryProcess;
    let theirs: Distribution;
    before(async () => {
      ours = await startRegistry();
      theirs = await startDistribution();
    });
    after(async () => {
      await ours?.stop();
      await theirs?.stop();
    });

    test('GET, HEAD and DELETE of an encoded digest, and a malformed one, answer alike', async () => {
      const session = async (base: string) => {
        const body = await pushSmallImage(base, 'enc/same', 'same');
        const put = await putManifest(base, 'enc/same', 'v1', body);
        assert.equal(put.status, 201, put.text());
        const digest = encodeURIComponent(sha256(body));
        const layer = encodeURIComponent(sha256(Buffer.from('layer of same')));
        const m = `${base}/v2/enc/same/manifests`;
        const steps: [string, () => Promise<HttpResponse>][] = [
          ['GET manifest', () => http(`${m}/${digest}`)],
          ['HEAD manifest', () => http(`${m}/${digest}`, { method: 'HEAD' })],
          ['GET blob', () => http(`${base}/v2/enc/same/blobs/${layer}`)],
          ['GET malformed', () => http(`${m}/sha256%3Azz`)],
          ['DELETE malformed', () => http(`${m}/sha256%3Azz`, { method: 'DELETE' })],
          ['DELETE manifest', () => http(`${m}/${digest}`, { method: 'DELETE' })],
          ['GET deleted', () => http(`${m}/${digest}`)],
          ['GET deleted tag', () => http(`${m}/v1`)],
        ];
        const out: Record<string, string> = {};
        for (const [name, step] of steps) out[name] = answer(await step());
        return out;
      };
      const theirAnswers = await session(theirs.url);
      const ourAnswers = await session(ours.url);
      // Distribution answers a malformed digest's GET with 500 UNKNOWN (its own DELETE says
      // 400 DIGEST_INVALID): bad input is the client's error, so ours says 400 to both.
      assert.equal(theirAnswers['GET malformed'], '500 UNKNOWN');
      assert.equal(ourAnswers['GET malformed'], '400 DIGEST_INVALID');
      assert.deepEqual({ ...ourAnswers, 'GET malformed': '' }, { ...theirAnswers, 'GET malformed': '' });
      assert.equal(ourAnswers['DELETE manifest'], '202');
    });
  },
);
