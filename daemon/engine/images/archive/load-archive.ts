// Reads `docker save` archives (Docker 1.10+ manifest.json, with or without the OCI files Docker
// 25 adds) and OCI image layouts into a BlobSink, each blob verified on the way. The archive is
// unpacked to a scratch directory first, confined to it, since its entries come in any order.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat, open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError } from '../../../api/errors';
import { MediaTypes, isLayer } from '../../../lib/media-types';
import { detectCompression, MAGIC_LENGTH } from '../../../lib/tar/decompress';
import { parseManifest } from '../distribution/manifest';
import { schema2Manifest, storeBytes } from '../distribution/json-blob';
import { shortId, type BlobSink, type ProgressListener } from '../distribution/types';
import type { Descriptor, ImageConfig } from '../../../api/manifest-types';
import { VerifyingStream, digestOf } from '../../../lib/registry-wire/verifying-stream';
import { parseReference, referenceString, withDefaultTag } from '../../shared/reference';
import { archivePath, extractArchive } from './extract-archive';

export interface LoadedImage {
  /** What to name in the store: a manifest, or an index for a multi-platform OCI entry. */
  target: Descriptor;
  /** The config of the (first) image: its digest is the image ID. */
  config: Descriptor;
  /** Canonical references (`docker.io/library/busybox:latest`) the archive gives the image. */
  names: string[];
}

export interface LoadOptions {
  sink: BlobSink;
  /** Scratch space; the OS temp dir when absent. Removed afterwards. */
  tempDir?: string;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
}

interface DockerManifestEntry {
  Config: string;
  RepoTags?: string[] | null;
  Layers: string[];
}

const MAX_JSON = 16 * 1024 * 1024;

async function readJson<T>(file: string): Promise<T> {
  const { size } = await stat(file);
  if (size > MAX_JSON)
    throw new InvalidParameterError(`invalid archive: ${path.basename(file)} is too large`);
  try {
    return JSON.parse(await readFile(file, 'utf8')) as T;
  } catch {
    throw new InvalidParameterError(`invalid archive: ${path.basename(file)} is not valid JSON`);
  }
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    (s) => s.isFile(),
    () => false,
  );
}

/** Loads every image of the archive; returns them in archive order. */
export async function loadArchive(input: Readable, options: LoadOptions): Promise<LoadedImage[]> {
  const parent = options.tempDir ?? os.tmpdir();
  // A daemon's temp dir is made on first use: a load may be the first thing it does.
  await mkdir(parent, { recursive: true });
  const scratch = await mkdtemp(path.join(parent, 'svc-load-'));
  try {
    await extractArchive(input, scratch, options.signal);
    if (await exists(path.join(scratch, 'index.json'))) return await loadOciLayout(scratch, options);
    if (await exists(path.join(scratch, 'manifest.json'))) return await loadDockerArchive(scratch, options);
    throw new InvalidParameterError(
      'invalid archive: neither manifest.json nor index.json found (archives from Docker before 1.10 are not supported)',
    );
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * Streams a file into the sink unless it is there, verified against `desc`. Progress is for layers
 * only, as in Docker (a config is no layer, and its ID would read as the image's).
 */
async function storeFile(file: string, desc: Descriptor, options: LoadOptions): Promise<void> {
  const { sink, signal, onProgress } = options;
  const report =
    onProgress && isLayer(desc.mediaType)
      ? (current: number) =>
          onProgress({ id: shortId(desc.digest), status: 'Loading layer', current, total: desc.size })
      : undefined;
  if (await sink.has(desc.digest)) {
    report?.(desc.size);
    return;
  }
  const verifier = new VerifyingStream(desc, report);
  const reading = pipeline(createReadStream(file), verifier, { signal }).catch(() => {});
  await sink.write(desc, verifier, signal);
  await reading;
  if (verifier.errored) throw verifier.errored;
}

async function hashFile(file: string): Promise<{ digest: string; size: number }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) {
    hash.update(chunk as Buffer);
    size += (chunk as Buffer).length;
  }
  return { digest: `sha256:${hash.digest('hex')}`, size };
}

async function layerMediaType(file: string): Promise<string> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(MAGIC_LENGTH);
    await handle.read(head, 0, MAGIC_LENGTH, 0);
    switch (detectCompression(head)) {
      case 'gzip':
        return MediaTypes.dockerLayerGzip;
      case 'zstd':
        return MediaTypes.ociLayerZstd;
      case 'none':
        return MediaTypes.dockerLayer;
      default:
        throw new InvalidParameterError(
          `invalid archive: layer ${path.basename(file)} uses a compression images cannot have`,
        );
    }
  } finally {
    await handle.close();
  }
}

function normaliseNames(names: string[]): string[] {
  return names.map((n) => referenceString(withDefaultTag(parseReference(n))));
}

async function loadDockerArchive(root: string, options: LoadOptions): Promise<LoadedImage[]> {
  const entries = await readJson<DockerManifestEntry[]>(path.join(root, 'manifest.json'));
  if (!Array.isArray(entries))
    throw new InvalidParameterError('invalid archive: manifest.json is not a list');
  const loaded: LoadedImage[] = [];
  for (const entry of entries) {
    options.signal?.throwIfAborted();
    if (typeof entry.Config !== 'string' || !Array.isArray(entry.Layers))
      throw new InvalidParameterError('invalid archive: bad manifest.json entry');
    const configFile = await archivePath(root, entry.Config);
    const configBytes = await readFile(configFile);
    const config: Descriptor = {
      mediaType: MediaTypes.dockerConfig,
      digest: digestOf(configBytes),
      size: configBytes.length,
    };
    const image = JSON.parse(configBytes.toString('utf8')) as ImageConfig;
    const diffIds = image.rootfs?.diff_ids ?? [];
    if (diffIds.length !== entry.Layers.length) {
      throw new InvalidParameterError(
        `invalid archive: ${entry.Config} lists ${diffIds.length} layers, manifest.json ${entry.Layers.length}`,
      );
    }
    const layers: Descriptor[] = [];
    for (const [i, name] of entry.Layers.entries()) {
      const file = await archivePath(root, name);
      const mediaType = await layerMediaType(file);
      const { digest, size } = await hashFile(file);
      if (mediaType === MediaTypes.dockerLayer && digest !== diffIds[i]) {
        throw new InvalidParameterError(
          `invalid archive: layer ${name} has digest ${digest}, the config expects ${diffIds[i]}`,
        );
      }
      const desc = { mediaType, digest, size };
      await storeFile(file, desc, options);
      layers.push(desc);
    }
    await storeFile(configFile, config, options);
    const { bytes, descriptor: target } = schema2Manifest(config, layers);
    await storeBytes(options.sink, target, bytes, options.signal);
    loaded.push({ target, config, names: normaliseNames(entry.RepoTags ?? []) });
  }
  return loaded;
}

async function loadOciLayout(root: string, options: LoadOptions): Promise<LoadedImage[]> {
  const index = parseManifest(await readFile(path.join(root, 'index.json')), MediaTypes.ociIndex);
  if (index.kind !== 'index') throw new InvalidParameterError('invalid archive: index.json is not an index');
  const blobFile = (digest: string) => archivePath(root, `blobs/${digest.replace(':', '/')}`);
  const byDigest = new Map<string, LoadedImage>();
  const order: LoadedImage[] = [];
  for (const entry of index.index.manifests) {
    options.signal?.throwIfAborted();
    let loaded = byDigest.get(entry.digest);
    if (!loaded) {
      const target: Descriptor = { mediaType: entry.mediaType, digest: entry.digest, size: entry.size };
      const config = await storeOciTree(target, blobFile, options);
      loaded = { target, config, names: [] };
      byDigest.set(entry.digest, loaded);
      order.push(loaded);
    }
    const name = ociName(entry.annotations ?? {});
    if (name) loaded.names.push(...normaliseNames([name]));
  }
  return order;
}

/** `io.containerd.image.name`, or a full reference in `org.opencontainers.image.ref.name`. */
function ociName(annotations: Record<string, string>): string | undefined {
  const full = annotations['io.containerd.image.name'];
  if (full) return full;
  const ref = annotations['org.opencontainers.image.ref.name'];
  // A bare tag (`latest`) names no repository: such images load untagged, as Docker does.
  return ref && /[/:]/.test(ref) ? ref : undefined;
}

/** Stores a manifest or index with what it references, children first; returns the config. */
async function storeOciTree(
  desc: Descriptor,
  blobFile: (digest: string) => Promise<string>,
  options: LoadOptions,
): Promise<Descriptor> {
  const file = await blobFile(desc.digest);
  const bytes = await readFile(file);
  const actual = digestOf(bytes, desc.digest);
  if (actual !== desc.digest)
    throw new InvalidParameterError(`invalid archive: ${desc.digest} has digest ${actual}`);
  const parsed = parseManifest(bytes, desc.mediaType);
  let config: Descriptor | undefined;
  if (parsed.kind === 'index') {
    for (const child of parsed.index.manifests) {
      // Multi-platform layouts often carry only some platforms: load the ones present.
      if (!(await exists(await blobFile(child.digest)))) continue;
      const childConfig = await storeOciTree(child, blobFile, options);
      config ??= childConfig;
    }
    if (!config)
      throw new InvalidParameterError(`invalid archive: no manifest of index ${desc.digest} is present`);
  } else if (parsed.kind === 'manifest') {
    for (const blob of [...parsed.manifest.layers, parsed.manifest.config]) {
      await storeFile(await blobFile(blob.digest), blob, options);
    }
    config = parsed.manifest.config;
  } else {
    throw new InvalidParameterError('invalid archive: schema1 manifests cannot be loaded');
  }
  await storeFile(file, { ...desc, mediaType: parsed.mediaType }, options);
  return config;
}
