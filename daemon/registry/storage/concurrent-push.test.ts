// Twenty clients pushing the same layers to one repository at once, each with its own manifest
// and tag: the store keeps one blob per digest, every manifest and tag resolves to what was
// pushed, and no upload is left behind.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { sha256, type Digest } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';
import { http } from '../../testing/http-client';
import {
  descriptor,
  pushBlob,
  pushBlobChunked,
  putManifest,
  type Descriptor,
} from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { filesUnder } from '../testing/stored-files';
import { paths } from './paths';

const pushers = 20;
const repo = 'conc/app';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

/** Every file under `dir`, relative to it. */
/** An OCI manifest of the shared blobs, told apart by an annotation naming its pusher. */
function manifestOf(config: Descriptor, layers: Descriptor[], pusher: number): Buffer {
  return Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config,
      layers,
      annotations: { pusher: String(pusher) },
    }),
  );
}

test('20 concurrent pushes of the same layers: one blob per digest, every tag valid, no upload left', async () => {
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', rootfs: {} }));
  const layers = [randomBytes(3 << 20), randomBytes(700_000), randomBytes(10)];
  const configDesc = descriptor(MediaTypes.ociConfig, config);
  const layerDescs = layers.map((l) => descriptor(MediaTypes.ociLayerGzip, l));
  const blobs = [config, ...layers];

  // Half push each blob in one PUT, half in chunks, so commits of one digest overlap both ways.
  const manifests = await Promise.all(
    Array.from({ length: pushers }, async (_, i) => {
      await Promise.all(
        blobs.map((b) => (i % 2 ? pushBlobChunked(reg.url, repo, b, 256 << 10) : pushBlob(reg.url, repo, b))),
      );
      const body = manifestOf(configDesc, layerDescs, i);
      const res = await putManifest(reg.url, repo, `t${i}`, body, MediaTypes.ociManifest);
      assert.equal(res.status, 201, res.body.toString());
      return body;
    }),
  );

  const digests = [...blobs, ...manifests].map((b) => sha256(b));
  const stored = await filesUnder(reg.driver, paths.blobsRoot());
  assert.deepEqual(
    stored,
    digests.map((d) => paths.blobData(d).slice(paths.blobsRoot().length + 1)).sort(),
    'one data file per digest, nothing else',
  );
  const links = await filesUnder(reg.driver, paths.layersDir(repo));
  assert.equal(links.length, blobs.length, links.join('\n'));
  assert.deepEqual(
    await reg.driver.list(paths.uploadsDir(repo)),
    [],
    'no upload directory left once the pushes are done',
  );

  const tags = (await http(`${reg.url}/v2/${repo}/tags/list`)).json<{ tags: string[] }>().tags;
  assert.deepEqual(tags.sort(), Array.from({ length: pushers }, (_, i) => `t${i}`).sort());
  for (const [i, body] of manifests.entries()) {
    const res = await http(`${reg.url}/v2/${repo}/manifests/t${i}`, {
      headers: { Accept: MediaTypes.ociManifest },
    });
    assert.equal(res.status, 200, `t${i}`);
    assert.ok(res.body.equals(body), `t${i} serves the manifest pushed under it`);
    assert.equal(res.headers['docker-content-digest'], sha256(body));
  }
  for (const [i, blob] of blobs.entries()) {
    const res = await http(`${reg.url}/v2/${repo}/blobs/${digests[i] as Digest}`);
    assert.equal(res.status, 200);
    assert.equal(sha256(res.body), digests[i], 'the blob holds its bytes');
    assert.equal(res.body.length, blob.length);
  }
});
