// Pushing an image: every blob first (HEAD to skip what the registry has, a cross-repository
// mount when the blob is known to live in another repository there, else an upload), then the
// manifests bottom-up, the top one under the tag.
import { buffer } from 'node:stream/consumers';
import { InvalidParameterError } from '../../../api/errors';
import { isImageIndex, isNondistributableLayer } from '../../../lib/media-types';
import { mapLimit } from './limit';
import { parseManifest } from './manifest';
import type { RegistryClient } from './registry-client';
import { shortId, type BlobSource, type ProgressListener } from './types';
import type { Descriptor } from '../../../api/manifest-types';
import { DigestMismatchError, digestOf } from '../../../lib/registry-wire/verifying-stream';

export interface PushOptions {
  client: RegistryClient;
  /** Repository path on the client's registry (`library/busybox`). */
  repository: string;
  /** Tag to push the top manifest under; by digest when absent. */
  tag?: string;
  /** The manifest or index to push, readable from `source` with everything it references. */
  target: Descriptor;
  source: BlobSource;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Parallel blob uploads (Docker's max-concurrent-uploads default: 5). */
  concurrency?: number;
  /** Repositories on the same registry the blob is known to exist in (mount candidates). */
  mountFrom?: (desc: Descriptor) => string[] | Promise<string[]>;
  /** PATCH chunk size; a monolithic PUT when absent. */
  chunkSize?: number;
}

export interface PushedImage {
  /** The digest and size Docker prints as `<tag>: digest: … size: …`. */
  digest: string;
  size: number;
  mediaType: string;
}

const PROGRESS_INTERVAL_MS = 100;

async function readManifest(source: BlobSource, desc: Descriptor, signal?: AbortSignal): Promise<Buffer> {
  const bytes = await buffer(await source.open(desc, signal));
  const actual = digestOf(bytes, desc.digest);
  if (actual !== desc.digest) throw new DigestMismatchError(desc.digest, actual);
  return bytes;
}

export async function pushImage(options: PushOptions): Promise<PushedImage> {
  const { target, source, signal } = options;
  const bytes = await readManifest(source, target, signal);
  const parsed = parseManifest(bytes, target.mediaType);
  if (parsed.kind === 'schema1')
    throw new InvalidParameterError('pushing schema1 manifests is not supported');
  if (parsed.kind === 'index') {
    for (const child of parsed.index.manifests) {
      if (isImageIndex(child.mediaType)) throw new InvalidParameterError('nested indexes cannot be pushed');
      await pushManifest(options, child, await readManifest(source, child, signal), child.digest);
    }
  }
  const digest = await pushManifest(options, target, bytes, options.tag ?? target.digest);
  return { digest, size: bytes.length, mediaType: parsed.mediaType };
}

async function pushManifest(
  options: PushOptions,
  desc: Descriptor,
  bytes: Buffer,
  reference: string,
): Promise<string> {
  const { client, repository, signal } = options;
  const parsed = parseManifest(bytes, desc.mediaType);
  if (parsed.kind === 'manifest') {
    const layers = parsed.manifest.layers.filter((l) => !isNondistributableLayer(l.mediaType));
    for (const layer of layers) options.onProgress?.({ id: shortId(layer.digest), status: 'Preparing' });
    const concurrency = options.concurrency ?? 5;
    for (const layer of layers.slice(concurrency))
      options.onProgress?.({ id: shortId(layer.digest), status: 'Waiting' });
    await mapLimit(unique(layers), concurrency, (layer) => pushBlob(options, layer, true));
    await pushBlob(options, parsed.manifest.config, false);
  }
  return client.putManifest(repository, reference, parsed.mediaType, bytes, signal);
}

function unique(descs: Descriptor[]): Descriptor[] {
  const seen = new Set<string>();
  return descs.filter((d) => !seen.has(d.digest) && seen.add(d.digest));
}

async function pushBlob(options: PushOptions, desc: Descriptor, isLayer: boolean): Promise<void> {
  const { client, repository, signal, source } = options;
  const id = shortId(desc.digest);
  const progress = isLayer ? options.onProgress : undefined;
  if (await client.blobExists(repository, desc.digest, signal)) {
    progress?.({ id, status: 'Layer already exists' });
    return;
  }
  let location: string | undefined;
  for (const from of (await options.mountFrom?.(desc)) ?? []) {
    if (from === repository) continue;
    const result = await client.mountBlob(repository, desc.digest, from, signal);
    if (result.mounted) {
      progress?.({ id, status: `Mounted from ${from}` });
      return;
    }
    location = result.location;
    break;
  }
  let last = 0;
  const onBytes = (current: number) => {
    const now = Date.now();
    if (now - last < PROGRESS_INTERVAL_MS) return;
    last = now;
    progress?.({ id, status: 'Pushing', current, total: desc.size });
  };
  const stream = await source.open(desc, signal);
  await client.uploadBlob(repository, desc, stream, {
    location,
    chunkSize: options.chunkSize,
    onBytes,
    signal,
  });
  progress?.({ id, status: 'Pushing', current: desc.size, total: desc.size });
  progress?.({ id, status: 'Pushed' });
}
