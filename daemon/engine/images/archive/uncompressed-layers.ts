// `docker save` writes layers uncompressed (their digest is the diff ID), but stores keep them
// compressed. This spools a decompressed copy to a temp file so its size is known for the tar
// header, without holding it in memory.
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { decompress } from '../../../lib/tar/decompress';
import type { BlobSource } from '../distribution/types';
import type { Descriptor } from '../../../api/manifest-types';
import { VerifyingStream } from '../../../lib/registry-wire/verifying-stream';

export interface UncompressedLayer {
  size: number;
  stream: Readable;
}

export type OpenUncompressed = (
  layer: Descriptor,
  diffId: string,
  signal?: AbortSignal,
) => Promise<UncompressedLayer>;

/** Layers from a BlobSource, decompressed into `tempDir` and checked against their diff IDs. */
export function spoolUncompressed(source: BlobSource, tempDir: string): OpenUncompressed {
  return async (layer, diffId, signal) => {
    await mkdir(tempDir, { recursive: true });
    const file = path.join(tempDir, `layer-${randomUUID()}.tar`);
    try {
      const { stream } = await decompress(await source.open(layer, signal));
      await pipeline(stream, new VerifyingStream({ digest: diffId }), createWriteStream(file), { signal });
      const { size } = await stat(file);
      const out = createReadStream(file);
      // The file goes once it has been read (or abandoned).
      out.on('close', () => void rm(file, { force: true }));
      return { size, stream: out };
    } catch (err) {
      await rm(file, { force: true });
      throw err;
    }
  };
}
