// Pulling an image: resolve the reference to a manifest (choosing a platform from an index), then
// fetch config and layers into a BlobSink in parallel, each verified while it streams, skipping
// blobs the sink already has. Unpacking is the image store's business, not this module's: it gets
// a hook to unpack each layer as soon as the layers below it are stored, as Docker extracts while
// later layers still download.
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { createHash } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { NotFoundError, SvcError } from '../../../api/errors';
import { MediaTypes } from '../../../lib/media-types';
import { familiarName, type Reference } from '../../shared/reference';
import { mapLimit } from './limit';
import { schema1Config, schema1Layers, type ParsedManifest } from './manifest';
import { parsePlatform, selectManifest, formatPlatform } from './platform';
import type { RegistryClient, FetchedManifest } from './registry-client';
import { shortId, type BlobSink, type ProgressListener } from './types';
import type { Descriptor, ImageConfig } from '../../../api/manifest-types';
import { digestOf } from '../../../lib/registry-wire/verifying-stream';
import { schema2Manifest, storeBytes } from './json-blob';

export interface PullOptions {
  client: RegistryClient;
  /** A tag or digest reference on the client's registry. */
  reference: Reference;
  /** `os/arch[/variant]`; linux/amd64 when absent. */
  platform?: string;
  sink: BlobSink;
  onProgress?: ProgressListener;
  signal?: AbortSignal;
  /** Parallel layer downloads (Docker's max-concurrent-downloads default: 3). */
  concurrency?: number;
  /**
   * Unpacks the image while its layers download: called once the config is known; `stored(i)`
   * settles when layer i is in the sink (rejects when the pull fails). The pull ends when both do.
   */
  unpack?: (
    image: ImageConfig,
    layers: Descriptor[],
    stored: (index: number) => Promise<void>,
  ) => Promise<void>;
}

export interface PulledImage {
  /** The digest the registry knows the reference by (an index's for multi-platform images): RepoDigests. */
  digest: string;
  /** What to name in the store: the index when there was one, else the manifest. */
  target: Descriptor;
  /** The manifest chosen for the platform (a converted schema2 manifest for schema1 images). */
  manifest: Descriptor;
  config: Descriptor;
  /** The parsed image config. Its digest is the image ID. */
  image: ImageConfig;
  layers: Descriptor[];
  /** Digests of the layers that were already present and not downloaded. */
  existingLayers: string[];
}

const PROGRESS_INTERVAL_MS = 100;
/** Temporary failures (network, 502/503/504, 429) are retried, as Docker retries downloads. */
const RETRY_DELAY_MS = [1000, 2000, 4000];

async function withRetries<T>(
  signal: AbortSignal | undefined,
  onRetry: (seconds: number) => void,
  task: () => Promise<T>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await task();
    } catch (err) {
      const temporary = err instanceof SvcError && err.kind === 'unavailable';
      if (!temporary || attempt >= RETRY_DELAY_MS.length || signal?.aborted) throw err;
      onRetry(RETRY_DELAY_MS[attempt] / 1000);
      await delay(RETRY_DELAY_MS[attempt], undefined, { signal });
    }
  }
}

/** Pulls one image. Blobs are committed bottom-up: layers and config first, manifests last. */
export async function pullImage(options: PullOptions): Promise<PulledImage> {
  const { client, reference, sink, signal } = options;
  const repo = reference.path;
  const wanted = parsePlatform(options.platform);
  const top = await resolveManifest(client, reference, signal);
  let chosen: FetchedManifest = top;
  if (top.parsed.kind === 'index') {
    const entry = selectManifest(top.parsed.index.manifests, wanted);
    chosen = await client.getManifest(repo, entry.digest, signal);
    if (chosen.parsed.kind === 'index')
      throw new NotFoundError(`nested index ${entry.digest} is not supported`);
  }
  if (chosen.parsed.kind === 'schema1') return pullSchema1(options, chosen, chosen.parsed);
  const manifest = (chosen.parsed as Extract<ParsedManifest, { kind: 'manifest' }>).manifest;
  const configBytes = await client.readBlob(repo, manifest.config, signal);
  const image = JSON.parse(configBytes.toString('utf8')) as ImageConfig;
  if (top.parsed.kind !== 'index' && options.platform) checkPlatform(image, wanted);
  // The config is stored while the layers download; manifests only once all they name is there.
  const configStored = storeBytes(sink, manifest.config, configBytes, signal);
  configStored.catch(() => {});
  // A failed layer waits for the config's write to settle, so no ingest outlives the pull.
  const existingLayers = await fetchAndUnpack(options, image, manifest.layers).catch(async (err: unknown) => {
    await configStored.catch(() => {});
    throw err;
  });
  await configStored;
  await storeBytes(sink, chosen.descriptor, chosen.bytes, signal);
  if (top !== chosen) await storeBytes(sink, top.descriptor, top.bytes, signal);
  return {
    digest: top.descriptor.digest,
    target: top.descriptor,
    manifest: chosen.descriptor,
    config: manifest.config,
    image,
    layers: manifest.layers,
    existingLayers,
  };
}

async function resolveManifest(
  client: RegistryClient,
  reference: Reference,
  signal?: AbortSignal,
): Promise<FetchedManifest> {
  const ref = reference.digest ?? reference.tag ?? 'latest';
  try {
    return await client.getManifest(reference.path, ref, signal);
  } catch (err) {
    if (
      err instanceof SvcError &&
      (err.kind === 'not-found' || err.kind === 'unauthorized' || err.kind === 'forbidden')
    ) {
      const name = familiarName(reference);
      // The registry's own words follow the request context in the message.
      const detail = err.message.slice(err.message.indexOf(': ') + 2);
      const message =
        err.kind === 'not-found' && /manifest unknown/.test(detail)
          ? `manifest for ${name}:${ref} not found: ${detail}`
          : `pull access denied for ${name}, repository does not exist or may require 'docker login': ${detail}`;
      throw new NotFoundError(message, { cause: err });
    }
    throw err;
  }
}

function checkPlatform(image: ImageConfig, wanted: ReturnType<typeof parsePlatform>): void {
  if (!image.os || !image.architecture) return;
  const actual = { os: image.os, architecture: image.architecture, variant: image.variant };
  if (actual.os !== wanted.os || actual.architecture !== wanted.architecture) {
    throw new NotFoundError(
      `image with reference was found but does not match the specified platform: wanted ${formatPlatform(wanted)}, actual: ${formatPlatform(actual)}`,
    );
  }
}

/** Fetches the layers while `options.unpack` unpacks those already stored, bottom-up. */
async function fetchAndUnpack(
  options: PullOptions,
  image: ImageConfig,
  layers: Descriptor[],
): Promise<string[]> {
  if (!options.unpack) return fetchLayers(options, layers);
  const stored = new Map<
    string,
    { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void }
  >();
  for (const layer of layers) {
    if (stored.has(layer.digest)) continue;
    let resolve!: () => void;
    let reject!: (err: unknown) => void;
    const promise = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
    promise.catch(() => {});
    stored.set(layer.digest, { promise, resolve, reject });
  }
  const unpacking = options.unpack(image, layers, (i) => stored.get(layers[i].digest)!.promise);
  unpacking.catch(() => {});
  let existing: string[];
  try {
    existing = await fetchLayers(options, layers, undefined, (digest) => stored.get(digest)!.resolve());
  } catch (err) {
    for (const gate of stored.values()) gate.reject(err);
    await unpacking.catch(() => {});
    throw err;
  }
  await unpacking;
  return existing;
}

/** Downloads the missing layers in parallel with Docker's progress messages; returns those skipped. */
async function fetchLayers(
  options: PullOptions,
  layers: Descriptor[],
  onLayer?: (i: number, stream: Transform) => void,
  onStored?: (digest: string) => void,
): Promise<string[]> {
  const { client, reference, sink, signal, onProgress } = options;
  const existing: string[] = [];
  const missing: { layer: Descriptor; index: number }[] = [];
  const seen = new Set<string>();
  for (const [index, layer] of layers.entries()) {
    if (seen.has(layer.digest)) continue;
    seen.add(layer.digest);
    if (await sink.has(layer.digest)) {
      existing.push(layer.digest);
      onProgress?.({ id: shortId(layer.digest), status: 'Already exists' });
      onStored?.(layer.digest);
    } else {
      missing.push({ layer, index });
      onProgress?.({ id: shortId(layer.digest), status: 'Pulling fs layer' });
    }
  }
  const concurrency = options.concurrency ?? 3;
  for (const { layer } of missing.slice(concurrency))
    onProgress?.({ id: shortId(layer.digest), status: 'Waiting' });
  await mapLimit(missing, concurrency, async ({ layer, index }) => {
    const id = shortId(layer.digest);
    let last = 0;
    const total = layer.size >= 0 ? layer.size : undefined;
    const onBytes = (current: number) => {
      const now = Date.now();
      if (now - last < PROGRESS_INTERVAL_MS) return;
      last = now;
      onProgress?.({ id, status: 'Downloading', current, total });
    };
    const target: BlobSink = onLayer
      ? {
          has: (d) => sink.has(d),
          write: (desc, stream, s) => {
            const tap = new PassThroughTap();
            onLayer(index, tap);
            stream.on('error', (err) => tap.destroy(err));
            return sink.write(desc, stream.pipe(tap), s);
          },
        }
      : sink;
    await withRetries(
      signal,
      (seconds) => onProgress?.({ id, status: `Retrying in ${seconds} second${seconds === 1 ? '' : 's'}` }),
      () =>
        client.fetchBlob(reference.path, layer, target, {
          signal,
          onBytes,
          checkDigest: !options.sink.verifiesDigest,
        }),
    );
    onProgress?.({ id, status: 'Verifying Checksum' });
    onProgress?.({ id, status: 'Download complete' });
    onStored?.(layer.digest);
  });
  return existing;
}

class PassThroughTap extends Transform {
  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.emit('tap', chunk);
    cb(null, chunk);
  }
}

/** Hashes the gunzipped bytes that pass through a tap: a schema1 layer's diff ID. */
function diffIdOf(tap: Transform): Promise<string> {
  const gunzip = createGunzip();
  const hash = createHash('sha256');
  tap.on('tap', (chunk: Buffer) => gunzip.write(chunk));
  tap.on('end', () => gunzip.end());
  tap.on('error', (err) => gunzip.destroy(err));
  gunzip.on('data', (chunk: Buffer) => hash.update(chunk));
  return new Promise((resolve, reject) => {
    gunzip.on('end', () => resolve(`sha256:${hash.digest('hex')}`));
    gunzip.on('error', reject);
  });
}

/** schema1: layers are fetched (computing their diff IDs on the way), then a schema2 image is made. */
async function pullSchema1(
  options: PullOptions,
  fetched: FetchedManifest,
  parsed: Extract<ParsedManifest, { kind: 'schema1' }>,
): Promise<PulledImage> {
  const { sink, signal } = options;
  const layers = schema1Layers(parsed.schema1);
  const diffIds: Promise<string>[] = [];
  const sizes: number[] = [];
  const existingLayers = await fetchLayers(options, layers, (index, tap) => {
    diffIds[index] = diffIdOf(tap);
    diffIds[index].catch(() => {});
    let size = 0;
    tap.on('tap', (chunk: Buffer) => (sizes[index] = size += chunk.length));
  });
  if (existingLayers.length > 0) {
    // The sink cannot give back a diff ID without decompressing; fetch those layers' ids anew.
    throw new NotFoundError(
      'schema1 images whose layers are already present cannot be converted: remove the partial image and pull again',
    );
  }
  const configBytes = schema1Config(parsed.schema1, await Promise.all(layers.map((_, i) => diffIds[i])));
  const config: Descriptor = {
    mediaType: MediaTypes.dockerConfig,
    digest: digestOf(configBytes),
    size: configBytes.length,
  };
  const sized = layers.map((l, i) => ({ ...l, size: sizes[i] ?? 0 }));
  const { bytes: manifestBytes, descriptor: manifestDesc } = schema2Manifest(config, sized);
  const image = JSON.parse(configBytes.toString('utf8')) as ImageConfig;
  await options.unpack?.(image, sized, () => Promise.resolve());
  await storeBytes(sink, config, configBytes, signal);
  await storeBytes(sink, manifestDesc, manifestBytes, signal);
  return {
    digest: fetched.descriptor.digest,
    target: manifestDesc,
    manifest: manifestDesc,
    config,
    image,
    layers: sized,
    existingLayers,
  };
}
