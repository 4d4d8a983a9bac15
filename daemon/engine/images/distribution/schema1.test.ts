import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
// A registry front serving a signed schema1 manifest (Distribution 2.8 no longer accepts their
// push); it is a test fixture, the client under test still speaks plain fetch.
import { createServer, type Server } from 'node:http';
import { MediaTypes } from '../../../lib/media-types';
import { parseReference } from '../../shared/reference';
import { RegistryClient } from './registry-client';
import { pullImage } from './pull';
import { DirectoryBlobStore } from '../../testing/directory-blob-store';
import { layerTar } from '../../testing/test-image';
import { digestOf } from '../../../lib/registry-wire/verifying-stream';
import type { ProgressEvent } from './types';

let dir: string;
let server: Server;
let host: string;
const blobs = new Map<string, Buffer>();
let signed: Buffer;
let payloadDigest: string;
let layerTars: Buffer[];
let flakyBlob = '';
let flakyFailures = 1;

/** A libtrust-style JWS: the signatures spliced before the final `}`, described by formatLength/Tail. */
function signSchema1(manifest: object): { signed: Buffer; payload: Buffer } {
  const payload = Buffer.from(JSON.stringify(manifest, null, 3));
  const formatLength = payload.lastIndexOf('\n}');
  const formatTail = payload.subarray(formatLength).toString('base64url');
  const protectedHeader = Buffer.from(
    JSON.stringify({ formatLength, formatTail, time: '2024-01-01T00:00:00Z' }),
  ).toString('base64url');
  const signatures = `,\n   "signatures": [{"header": {"alg": "ES256"}, "signature": "c2ln", "protected": "${protectedHeader}"}]\n}`;
  return { signed: Buffer.concat([payload.subarray(0, formatLength), Buffer.from(signatures)]), payload };
}

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'schema1-test-'));
  layerTars = [await layerTar({ 'bin/a': 'A' }), await layerTar({ 'etc/b': 'B' })];
  const gz = layerTars.map((t) => gzipSync(t));
  const emptyGz = gzipSync(await layerTar({}));
  for (const b of [...gz, emptyGz]) blobs.set(digestOf(b), b);
  flakyBlob = digestOf(gz[1]);
  const v1 = (id: string, parent: string | undefined, extra: object) => ({
    v1Compatibility: JSON.stringify({
      id,
      ...(parent ? { parent } : {}),
      created: '2016-01-01T00:00:00Z',
      container_config: { Cmd: ['/bin/sh', '-c', `#(nop) ${id}`] },
      ...extra,
    }),
  });
  // Top layer first, as schema1 lists them; the middle entry is a throwaway (no filesystem change).
  const manifest = {
    schemaVersion: 1,
    name: 'old/image',
    tag: 'v1',
    architecture: 'amd64',
    fsLayers: [{ blobSum: digestOf(gz[1]) }, { blobSum: digestOf(emptyGz) }, { blobSum: digestOf(gz[0]) }],
    history: [
      v1('c', 'b', { os: 'linux', architecture: 'amd64', config: { Cmd: ['sh'] } }),
      v1('b', 'a', { throwaway: true }),
      v1('a', undefined, {}),
    ],
  };
  const jws = signSchema1(manifest);
  signed = jws.signed;
  payloadDigest = digestOf(jws.payload);
  server = createServer((req, res) => {
    const url = req.url ?? '';
    if (url === '/v2/') return res.end('{}');
    if (url === '/v2/old/image/manifests/v1') {
      res.writeHead(200, { 'Content-Type': MediaTypes.dockerSchema1Signed });
      return res.end(signed);
    }
    const blob = /\/blobs\/(sha256:[0-9a-f]+)$/.exec(url);
    if (blob && blob[1] === flakyBlob && flakyFailures-- > 0) {
      res.writeHead(503);
      return res.end();
    }
    if (blob && blobs.has(blob[1])) return res.end(blobs.get(blob[1]));
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end('{"errors":[{"code":"BLOB_UNKNOWN","message":"blob unknown to registry"}]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host = `127.0.0.1:${(server.address() as { port: number }).port}`;
});

after(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

test('a signed schema1 image is pulled and converted to schema2 with its diff IDs', async () => {
  const sink = new DirectoryBlobStore(path.join(dir, 'store'));
  const events: ProgressEvent[] = [];
  const pulled = await pullImage({
    client: new RegistryClient({ host }),
    reference: parseReference(`${host}/old/image:v1`),
    sink,
    onProgress: (e) => events.push(e),
  });
  assert.ok(
    events.some((e) => e.status === 'Retrying in 1 second'),
    'a 503 on a blob is retried',
  );
  assert.equal(pulled.digest, payloadDigest, 'the digest covers the payload, not the signatures');
  assert.equal(pulled.manifest.mediaType, MediaTypes.dockerManifest);
  assert.deepEqual(
    pulled.image.rootfs?.diff_ids,
    layerTars.map((t) => digestOf(t)),
  );
  assert.deepEqual(pulled.image.config, { Cmd: ['sh'] });
  assert.deepEqual(
    pulled.image.history?.map((h) => !!h.empty_layer),
    [false, true, false],
  );
  assert.equal(pulled.layers.length, 2, 'the throwaway layer is not part of the image');
  for (const d of [pulled.manifest.digest, pulled.config.digest, ...pulled.layers.map((l) => l.digest)])
    assert.ok(await sink.has(d), d);
});
