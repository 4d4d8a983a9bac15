// Assembles small images for tests into a DirectoryBlobStore: a gzip layer tar written with our
// tar writer (holding /bin/busybox or given files), a config and a schema2 or OCI manifest.
import { readFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { gzipSync } from 'node:zlib';
import { MediaTypes } from '../../lib/media-types';
import { TarWriter } from '../../lib/tar/tar-writer';
import type { Descriptor, ImageConfig, ImageIndex, ImageManifest, Platform } from '../../api/manifest-types';
import { digestOf } from '../../lib/registry-wire/verifying-stream';
import type { DirectoryBlobStore } from './directory-blob-store';
import { storeBytes } from '../images/distribution/json-blob';

export interface TestImage {
  manifest: Descriptor;
  config: Descriptor;
  layers: Descriptor[];
  diffIds: string[];
}

async function put(store: DirectoryBlobStore, mediaType: string, bytes: Buffer): Promise<Descriptor> {
  const desc = { mediaType, digest: digestOf(bytes), size: bytes.length };
  await storeBytes(store, desc, bytes);
  return desc;
}

/** A layer tar of the given files (name → content), plain. */
export async function layerTar(files: Record<string, Buffer | string>): Promise<Buffer> {
  const writer = new TarWriter();
  const out = buffer(writer.stream);
  for (const [name, content] of Object.entries(files)) {
    await writer.add(
      { name, mode: name.startsWith('bin/') ? 0o755 : 0o644, mtime: new Date(1_700_000_000_000) },
      content,
    );
  }
  await writer.finish();
  return out;
}

export async function busyboxLayer(): Promise<Buffer> {
  return layerTar({ 'bin/busybox': await readFile('/bin/busybox') });
}

/** Stores layers (plain tars, gzipped here), a config and a manifest; returns the descriptors. */
export async function buildImage(
  store: DirectoryBlobStore,
  layerTars: Buffer[],
  options: { platform?: Platform; oci?: boolean; labels?: Record<string, string> } = {},
): Promise<TestImage> {
  const oci = options.oci ?? false;
  const layers: Descriptor[] = [];
  const diffIds: string[] = [];
  for (const tar of layerTars) {
    diffIds.push(digestOf(tar));
    layers.push(await put(store, oci ? MediaTypes.ociLayerGzip : MediaTypes.dockerLayerGzip, gzipSync(tar)));
  }
  const platform = options.platform ?? { os: 'linux', architecture: 'amd64' };
  const image: ImageConfig = {
    architecture: platform.architecture,
    os: platform.os,
    ...(platform.variant ? { variant: platform.variant } : {}),
    created: '2023-11-14T22:13:20Z',
    config: { Cmd: ['/bin/busybox', 'sh'], Labels: options.labels ?? {} },
    rootfs: { type: 'layers', diff_ids: diffIds },
    history: diffIds.map(() => ({ created: '2023-11-14T22:13:20Z', created_by: 'test' })),
  };
  const config = await put(
    store,
    oci ? MediaTypes.ociConfig : MediaTypes.dockerConfig,
    Buffer.from(JSON.stringify(image)),
  );
  const body: ImageManifest = {
    schemaVersion: 2,
    mediaType: oci ? MediaTypes.ociManifest : MediaTypes.dockerManifest,
    config,
    layers,
  };
  const manifest = await put(store, body.mediaType!, Buffer.from(JSON.stringify(body)));
  return { manifest, config, layers, diffIds };
}

/** An index (OCI or Docker manifest list) over platform manifests already in the store. */
export async function buildIndex(
  store: DirectoryBlobStore,
  entries: { manifest: Descriptor; platform: Platform }[],
  oci = true,
): Promise<Descriptor> {
  const mediaType = oci ? MediaTypes.ociIndex : MediaTypes.dockerManifestList;
  const body: ImageIndex = {
    schemaVersion: 2,
    mediaType,
    manifests: entries.map((e) => ({ ...e.manifest, platform: e.platform })),
  };
  return put(store, mediaType, Buffer.from(JSON.stringify(body)));
}
