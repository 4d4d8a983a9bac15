// GET /images/{name}/get, /images/get and POST /images/load: docker-save archives (with the OCI
// layout beside manifest.json) written from, and read into, containerd's content store.
import type { Emit } from '../../api/image-types';
import path from 'node:path';
import { InvalidParameterError, SvcError, SystemError } from '../../api/errors';
import type { Readable } from 'node:stream';
import { loadArchive } from './archive/load-archive';
import { saveImages, type SaveImage } from './archive/save-archive';
import { spoolUncompressed } from './archive/uncompressed-layers';
import { ContentStore } from './content-store';
import type { ImageStore, StoredImage } from './image-store';
import { withLease } from './lease';
import { progressMessage } from './progress';
import { familiarString, parseReference, referenceString, withDefaultTag } from '../shared/reference';
import { unpackLayers } from './unpacker';
import type { ContainerdClient } from '../../runtime/containerd/client';

export interface ArchiveContext {
  client: ContainerdClient;
  store: ImageStore;
  tempDir: string;
  onSaved(image: StoredImage): void;
  onLoaded(id: string): void;
}

/** The names a save request records for an image: the tag asked, every tag of a bare repository, none for an ID. */
function savedNames(image: StoredImage, asked: string): string[] {
  let ref;
  try {
    ref = parseReference(asked);
  } catch {
    return [];
  }
  const tags = image.names.filter((n) => n.tag);
  if (ref.tag) return tags.filter((n) => referenceString(n) === referenceString(ref)).map(referenceString);
  if (ref.digest) return [];
  const sameRepo = tags.filter((n) => n.domain === ref.domain && n.path === ref.path);
  return sameRepo.map(referenceString);
}

export async function save(ctx: ArchiveContext, names: string[], signal?: AbortSignal): Promise<Readable> {
  const byId = new Map<string, { image: StoredImage; save: SaveImage }>();
  for (const name of names) {
    const image = await ctx.store.get(name);
    const entry = byId.get(image.id) ?? { image, save: { manifest: image.manifest, names: [] } };
    for (const n of savedNames(image, name)) if (!entry.save.names.includes(n)) entry.save.names.push(n);
    byId.set(image.id, entry);
  }
  const content = new ContentStore(ctx.client);
  const scratch = path.join(ctx.tempDir, 'save');
  const archive = saveImages(
    [...byId.values()].map((e) => e.save),
    { open: (desc) => content.open(desc), openUncompressed: spoolUncompressed(content, scratch) },
    signal,
  );
  for (const { image } of byId.values()) ctx.onSaved(image);
  return archive;
}

export async function load(
  ctx: ArchiveContext,
  body: Readable,
  options: { quiet: boolean; emit: Emit; signal?: AbortSignal },
): Promise<void> {
  await withLease(ctx.client, async (leased) => {
    const loaded = await loadArchive(body, {
      sink: new ContentStore(leased),
      tempDir: ctx.tempDir,
      onProgress: options.quiet ? undefined : (event) => options.emit(progressMessage(event)),
      signal: options.signal,
    }).catch((err: unknown) => {
      // The tar reader's plain errors mean a malformed upload: the client's fault, not ours.
      // A failed system call (a full disk, a missing directory) is ours.
      if (err instanceof SvcError || options.signal?.aborted) throw err;
      if (err instanceof Error && 'syscall' in err)
        throw new SystemError(`load: ${err.message}`, { cause: err });
      throw new InvalidParameterError(`invalid archive: ${err instanceof Error ? err.message : String(err)}`);
    });
    for (const entry of loaded) {
      const image = await ctx.store.resolve(entry.target, undefined, leased);
      await unpackLayers(leased, image.layers, image.config.rootfs.diff_ids, undefined, options.signal);
      await ctx.store.protect(image, leased);
      if (entry.names.length === 0) {
        await ctx.store.setDangling(image, leased);
        options.emit({ stream: `Loaded image ID: ${image.id}\n` });
      }
      for (const name of entry.names) {
        const previous = await ctx.store.setName(name, image, leased);
        const familiar = familiarString(withDefaultTag(parseReference(name)));
        if (previous) {
          options.emit({
            stream: `The image ${familiar} already exists, renaming the old one with ID ${previous} to empty string\n`,
          });
        }
        options.emit({ stream: `Loaded image: ${familiar}\n` });
      }
      ctx.onLoaded(image.id);
    }
  });
}
