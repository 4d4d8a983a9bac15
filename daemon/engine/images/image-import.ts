// POST /images/create?fromSrc=…: a root filesystem tar (plain, gzip, bzip2 or xz) from the
// request body or a URL becomes a one-layer image, with `changes` applied to its config.
import { createHash, randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { Readable, Transform, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { InvalidParameterError } from '../../api/errors';
import type { Emit, OciImageConfig } from '../../api/image-types';
import { MediaTypes } from '../../lib/media-types';
import { decompress } from '../../lib/tar/decompress';
import { applyChanges } from './image-changes';
import type { ImageStore, ImageContent } from './image-store';
import { putBlob, withLease } from './lease';
import { parsePlatform } from './distribution/platform';
import type { Descriptor } from '../../api/manifest-types';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { ContentStore } from './content-store';
import { progressBar } from './progress';
import { unpackLayers } from './unpacker';

export interface ImportOptions {
  /** The request body when `fromSrc` is `-`. */
  body?: Readable;
  /** `-` or a URL. */
  fromSrc: string;
  /** Canonical name to give the image, if any. */
  name?: string;
  message?: string;
  changes: string[];
  platform?: string;
  emit: Emit;
  signal?: AbortSignal;
}

/** Counts bytes as they pass and reports them, at most every 100 ms. */
class Counter extends Transform {
  count = 0;
  private last = 0;
  constructor(private readonly report: (n: number) => void) {
    super();
  }
  override _transform(chunk: Buffer, _e: BufferEncoding, cb: TransformCallback): void {
    this.count += chunk.length;
    const now = Date.now();
    if (now - this.last >= 100) {
      this.last = now;
      this.report(this.count);
    }
    cb(null, chunk);
  }
}

async function openSource(options: ImportOptions): Promise<Readable> {
  if (options.fromSrc === '-') {
    if (!options.body) throw new InvalidParameterError('fromSrc=- needs a request body');
    return options.body;
  }
  const url = /^[a-z][a-z0-9+.-]*:\/\//i.test(options.fromSrc)
    ? options.fromSrc
    : `http://${options.fromSrc}`;
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw new InvalidParameterError(`invalid fromSrc URL: ${options.fromSrc}`);
  }
  options.emit({ status: `Downloading from ${parsed.toString()}` });
  const res = await fetch(parsed, { signal: options.signal });
  if (!res.ok || !res.body) {
    throw new InvalidParameterError(`Get "${parsed.toString()}": ${res.status} ${res.statusText}`);
  }
  return Readable.fromWeb(res.body as import('node:stream/web').ReadableStream);
}

/** Decompresses to a spool file while hashing; the layer's digest is its diff ID. */
async function spoolLayer(
  source: Readable,
  tempDir: string,
  options: ImportOptions,
): Promise<{ file: string; digest: string; size: number }> {
  await mkdir(tempDir, { recursive: true });
  const file = path.join(tempDir, `import-${randomUUID()}.tar`);
  const counter = new Counter((n) =>
    options.emit({ status: 'Importing', progressDetail: { current: n }, progress: progressBar(n) }),
  );
  const hash = createHash('sha256');
  let size = 0;
  const hasher = new Transform({
    transform(chunk: Buffer, _e, cb) {
      hash.update(chunk);
      size += chunk.length;
      cb(null, chunk);
    },
  });
  try {
    source.on('error', (err) => counter.destroy(err));
    const { stream } = await decompress(source.pipe(counter));
    await pipeline(stream, hasher, createWriteStream(file), { signal: options.signal });
  } catch (err) {
    await rm(file, { force: true });
    throw err;
  }
  if (size === 0) {
    await rm(file, { force: true });
    throw new InvalidParameterError('the imported archive is empty');
  }
  return { file, digest: `sha256:${hash.digest('hex')}`, size };
}

export interface NewImage {
  layers: Descriptor[];
  config: OciImageConfig;
  /** Canonical name, or none for a dangling image. */
  name?: string;
  /** The local image it was made from (a commit's), shown as its Parent. */
  parent?: string;
}

/** Writes config and manifest, unpacks, labels and names an image whose layers are stored. */
export async function createImage(
  store: ImageStore,
  leased: ContainerdClient,
  image: NewImage,
): Promise<ImageContent> {
  const configDesc = await putBlob(
    leased,
    MediaTypes.dockerConfig,
    Buffer.from(JSON.stringify(image.config)),
  );
  const manifest = await putBlob(
    leased,
    MediaTypes.dockerManifest,
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.dockerManifest,
        config: configDesc,
        layers: image.layers,
      }),
    ),
  );
  const content: ImageContent = {
    id: configDesc.digest,
    target: manifest,
    manifest,
    layers: image.layers,
    config: image.config,
  };
  await unpackLayers(leased, image.layers, image.config.rootfs.diff_ids);
  await store.protect(content, leased);
  if (image.parent) await store.setParent(content.id, image.parent, leased);
  if (image.name) await store.setName(image.name, content, leased);
  else await store.setDangling(content, leased);
  return content;
}

export async function importImage(
  store: ImageStore,
  client: ContainerdClient,
  tempDir: string,
  options: ImportOptions,
): Promise<ImageContent> {
  const platform = parsePlatform(options.platform);
  const changes = applyChanges({}, options.changes);
  const source = await openSource(options);
  const layer = await spoolLayer(source, tempDir, options);
  try {
    return await withLease(client, async (leased) => {
      const desc: Descriptor = { mediaType: MediaTypes.dockerLayer, digest: layer.digest, size: layer.size };
      const content = new ContentStore(leased);
      if (!(await content.has(desc.digest)))
        await content.write(desc, createReadStream(layer.file), options.signal);
      const created = new Date().toISOString();
      const config: OciImageConfig = {
        architecture: platform.architecture,
        os: platform.os,
        ...(platform.variant ? { variant: platform.variant } : {}),
        created,
        config: changes,
        rootfs: { type: 'layers', diff_ids: [layer.digest] },
        history: [{ created, comment: options.message || `Imported from ${options.fromSrc}` }],
      };
      return createImage(store, leased, { layers: [desc], config, name: options.name });
    });
  } finally {
    await rm(layer.file, { force: true });
  }
}
