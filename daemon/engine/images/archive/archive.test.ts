import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, mkdir, readdir, rm, writeFile, readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { TarWriter } from '../../../lib/tar/tar-writer';
import type { TarHeaderInput } from '../../../lib/tar/tar-header';
import { readTar } from '../../../lib/tar/tar-reader';
import { MediaTypes } from '../../../lib/media-types';
import { DirectoryBlobStore } from '../../testing/directory-blob-store';
import { buildImage, busyboxLayer, layerTar, type TestImage } from '../../testing/test-image';
import { digestOf } from '../../../lib/registry-wire/verifying-stream';
import { shortId, type ProgressEvent } from '../distribution/types';
import { saveImages } from './save-archive';
import { loadArchive } from './load-archive';
import { spoolUncompressed } from './uncompressed-layers';

let dir: string;
let n = 0;
const freshStore = () => new DirectoryBlobStore(path.join(dir, `store-${n++}`));

async function tarOf(entries: [TarHeaderInput, (Buffer | string)?][]): Promise<Buffer> {
  const writer = new TarWriter();
  const out = buffer(writer.stream);
  for (const [h, body] of entries) await writer.add(h, body);
  await writer.finish();
  return out;
}

const load = (file: string, sink: DirectoryBlobStore) =>
  loadArchive(createReadStream(file), { sink, tempDir: dir });

before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'archive-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('docker save format', () => {
  let source: DirectoryBlobStore;
  let image: TestImage;
  let saved: string;

  before(async () => {
    source = freshStore();
    image = await buildImage(source, [await busyboxLayer(), await layerTar({ 'etc/motd': 'hi\n' })]);
    saved = path.join(dir, 'saved.tar');
    const stream = saveImages(
      [{ manifest: image.manifest, names: ['busybox:latest', 'localhost:5000/x:1'] }],
      {
        open: (d) => source.open(d),
        openUncompressed: spoolUncompressed(source, path.join(dir, 'spool')),
      },
    );
    await pipeline(stream, createWriteStream(saved));
  });

  test('the archive has the Docker 25 layout and the legacy layer directories', async () => {
    const listing = execFileSync('tar', ['-tvf', saved], { encoding: 'utf8' });
    for (const name of [
      'manifest.json',
      'index.json',
      'oci-layout',
      'repositories',
      `blobs/sha256/${image.config.digest.slice(7)}`,
      `${image.config.digest.slice(7)}.json`,
    ]) {
      assert.match(listing, new RegExp(` ${name}$`, 'm'), name);
    }
    for (const diffId of image.diffIds)
      assert.match(listing, new RegExp(` blobs/sha256/${diffId.slice(7)}$`, 'm'));
    assert.equal((listing.match(/\/VERSION$/gm) ?? []).length, 2);
    assert.match(listing, /\/layer\.tar -> \.\.\/blobs\/sha256\/[0-9a-f]{64}$/m);
    const files = new Map<string, Buffer>();
    for await (const entry of readTar(createReadStream(saved)))
      files.set(entry.header.name, await buffer(entry.body));
    assert.equal(digestOf(files.get(`${image.config.digest.slice(7)}.json`)!), image.config.digest);
    const manifest = JSON.parse(files.get('manifest.json')!.toString());
    assert.deepEqual(manifest, [
      {
        Config: `blobs/sha256/${image.config.digest.slice(7)}`,
        RepoTags: ['busybox:latest', 'localhost:5000/x:1'],
        Layers: image.diffIds.map((d) => `blobs/sha256/${d.slice(7)}`),
      },
    ]);
    const repositories = JSON.parse(files.get('repositories')!.toString());
    assert.deepEqual(Object.keys(repositories).sort(), ['busybox', 'localhost:5000/x']);
    for (const diffId of image.diffIds)
      assert.equal(digestOf(files.get(`blobs/sha256/${diffId.slice(7)}`)!), diffId);
    const index = JSON.parse(files.get('index.json')!.toString());
    assert.deepEqual(
      index.manifests.map(
        (m: { annotations: Record<string, string> }) => m.annotations['io.containerd.image.name'],
      ),
      ['docker.io/library/busybox:latest', 'localhost:5000/x:1'],
    );
  });

  test('skopeo reads it as a docker archive and as an OCI archive', () => {
    const docker = JSON.parse(
      execFileSync('skopeo', ['inspect', '--raw', `docker-archive:${saved}:busybox:latest`], {
        encoding: 'utf8',
      }),
    );
    assert.equal(docker.config.digest, image.config.digest);
    const oci = JSON.parse(
      execFileSync('skopeo', ['inspect', '--config', `oci-archive:${saved}:latest`], { encoding: 'utf8' }),
    );
    assert.deepEqual(oci.rootfs.diff_ids, image.diffIds);
  });

  test('save then load: same image, same names', async () => {
    const sink = freshStore();
    const [loaded, ...rest] = await load(saved, sink);
    assert.equal(rest.length, 0);
    assert.equal(loaded.config.digest, image.config.digest);
    assert.deepEqual(loaded.names, ['docker.io/library/busybox:latest', 'localhost:5000/x:1']);
    assert.ok(await sink.has(loaded.target.digest));
    for (const diffId of image.diffIds) assert.ok(await sink.has(diffId));
    assert.deepEqual((await sink.contents()).ingest, []);
  });

  test('a load may be the first use of the temp dir; progress is for layers only', async () => {
    const sink = freshStore();
    const events: ProgressEvent[] = [];
    const loadOnce = () =>
      loadArchive(createReadStream(saved), {
        sink,
        tempDir: path.join(dir, 'not-made-yet', 'tmp'),
        onProgress: (e) => events.push(e),
      });
    const [loaded] = await loadOnce();
    assert.equal(loaded.config.digest, image.config.digest);
    // Docker 20.10 shows the layers only, by diff ID: no line for the config.
    assert.deepEqual([...new Set(events.map((e) => e.id))], image.diffIds.map(shortId));
    for (const e of events) assert.equal(e.status, 'Loading layer');
    const finals = image.diffIds.map((d) => events.findLast((e) => e.id === shortId(d)));
    for (const last of finals) assert.ok(last && last.current === last.total && last.total! > 0);
    // Layers already present show as loaded at once.
    events.length = 0;
    await loadOnce();
    assert.deepEqual(events, finals);
  });

  test('an archive of Docker 1.10-24 (manifest.json, <id>/layer.tar, a gzipped layer) loads', async () => {
    const plain = await layerTar({ a: 'A' });
    const gzipped = gzipSync(await layerTar({ b: 'B' }));
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        rootfs: { type: 'layers', diff_ids: [digestOf(plain), digestOf(await layerTar({ b: 'B' }))] },
      }),
    );
    const file = path.join(dir, 'legacy.tar');
    await writeFile(
      file,
      await tarOf([
        [{ name: `${'1'.repeat(64)}/VERSION` }, '1.0'],
        [{ name: `${'1'.repeat(64)}/layer.tar` }, plain],
        [{ name: `${'2'.repeat(64)}/layer.tar` }, gzipped],
        [{ name: `${digestOf(config).slice(7)}.json` }, config],
        [
          { name: 'manifest.json' },
          JSON.stringify([
            {
              Config: `${digestOf(config).slice(7)}.json`,
              RepoTags: ['legacy:1'],
              Layers: [`${'1'.repeat(64)}/layer.tar`, `${'2'.repeat(64)}/layer.tar`],
            },
          ]),
        ],
      ]),
    );
    const sink = freshStore();
    const [loaded] = await load(file, sink);
    assert.equal(loaded.config.digest, digestOf(config));
    assert.deepEqual(loaded.names, ['docker.io/library/legacy:1']);
    const manifest = JSON.parse((await readFile(sink.blobPath(loaded.target.digest))).toString());
    assert.deepEqual(
      manifest.layers.map((l: { mediaType: string }) => l.mediaType),
      [MediaTypes.dockerLayer, MediaTypes.dockerLayerGzip],
    );
    assert.equal(manifest.layers[1].digest, digestOf(gzipped));
  });

  test('an OCI layout written by skopeo loads', async () => {
    const ociFile = path.join(dir, 'skopeo-oci.tar');
    execFileSync('skopeo', [
      'copy',
      '-q',
      `docker-archive:${saved}:busybox:latest`,
      `oci-archive:${ociFile}:docker.io/library/skopeo:1`,
    ]);
    const sink = freshStore();
    const [loaded] = await load(ociFile, sink);
    assert.deepEqual(loaded.names, ['docker.io/library/skopeo:1']);
    // skopeo re-serialises the config; the filesystem it describes is the same.
    const config = JSON.parse((await readFile(sink.blobPath(loaded.config.digest))).toString());
    assert.deepEqual(config.rootfs.diff_ids, image.diffIds);
  });
});

describe('hostile archives', () => {
  test('an entry climbing out of the scratch dir is rejected', async () => {
    const file = path.join(dir, 'escape.tar');
    await writeFile(file, await tarOf([[{ name: '../../escaped' }, 'x']]));
    await assert.rejects(load(file, freshStore()), /escapes the root/);
    await assert.rejects(readFile(path.join(dir, 'escaped')), { code: 'ENOENT' });
  });

  test('writing through a symlink to an outside directory stays inside', async () => {
    const outside = path.join(dir, 'outside');
    await mkdir(outside);
    const file = path.join(dir, 'symlink-escape.tar');
    await writeFile(
      file,
      await tarOf([
        [{ name: 'link', type: 'symlink', linkname: outside }],
        [{ name: 'link/pwned' }, 'x'],
        [{ name: 'manifest.json' }, '[]'],
      ]),
    );
    assert.deepEqual(await load(file, freshStore()), []);
    assert.deepEqual(await readdir(outside), []);
  });

  test('manifest.json paths and layer.tar symlinks cannot reach host files', async () => {
    const config = Buffer.from(
      JSON.stringify({ rootfs: { type: 'layers', diff_ids: [`sha256:${'0'.repeat(64)}`] } }),
    );
    for (const [layerPath, extra] of [
      ['../../../../../etc/passwd', []],
      ['evil/layer.tar', [[{ name: 'evil/layer.tar', type: 'symlink', linkname: '/etc/passwd' }]]],
    ] as [string, [TarHeaderInput][]][]) {
      const file = path.join(dir, 'manifest-escape.tar');
      await writeFile(
        file,
        await tarOf([
          [{ name: 'config.json' }, config],
          ...extra,
          [
            { name: 'manifest.json' },
            JSON.stringify([{ Config: 'config.json', RepoTags: [], Layers: [layerPath] }]),
          ],
        ]),
      );
      const sink = freshStore();
      await assert.rejects(load(file, sink), /escapes the root|ENOENT/);
      assert.deepEqual((await sink.contents()).blobs, []);
    }
  });

  test('a blob that does not match its digest in an OCI layout is refused, nothing committed', async () => {
    const layer = await layerTar({ f: 'x' });
    const configBytes = Buffer.from('{"rootfs":{"type":"layers","diff_ids":[]}}');
    const config = {
      mediaType: MediaTypes.ociConfig,
      digest: digestOf(configBytes),
      size: configBytes.length,
    };
    const layerDesc = { mediaType: MediaTypes.ociLayer, digest: digestOf(layer), size: layer.length };
    const manifest = Buffer.from(
      JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociManifest, config, layers: [layerDesc] }),
    );
    const tampered = Buffer.from(layer);
    tampered[600] ^= 1;
    const file = path.join(dir, 'tampered.tar');
    await writeFile(
      file,
      await tarOf([
        [{ name: 'oci-layout' }, '{"imageLayoutVersion":"1.0.0"}'],
        [{ name: `blobs/sha256/${layerDesc.digest.slice(7)}` }, tampered],
        [{ name: `blobs/sha256/${config.digest.slice(7)}` }, configBytes],
        [{ name: `blobs/sha256/${digestOf(manifest).slice(7)}` }, manifest],
        [
          { name: 'index.json' },
          JSON.stringify({
            schemaVersion: 2,
            manifests: [
              { mediaType: MediaTypes.ociManifest, digest: digestOf(manifest), size: manifest.length },
            ],
          }),
        ],
      ]),
    );
    const sink = freshStore();
    await assert.rejects(load(file, sink), /digest mismatch/);
    assert.deepEqual(await sink.contents(), { blobs: [], ingest: [] });
  });
});
