// The files each layer of an image adds, changes and removes: GET /engine/images/{name}/layer-files
// (or /engines/{engine}/…), a gateway extension. Docker's API has no such view, so the gateway
// reads the image's `docker save` archive, which every engine serves, as it streams past: each
// layer tar is read entry by entry (its bytes are never kept), and only the entries' names, types
// and sizes are held, up to MAX_ENTRIES for the whole image.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import type { ImageLayerFiles, LayerChange } from '../../../daemon/api/image-layer-types';
import { decompress } from '../../../daemon/lib/tar/decompress';
import { readTar } from '../../../daemon/lib/tar/tar-reader';
import type { TarEntryType } from '../../../daemon/lib/tar/tar-header';
import { engineGet, readJson } from './engine-get';
import { layerChanges, type LayerEntry } from './layer-changes';
import { sendError, sendJson } from './responses';
import type { Route, Upstreams } from './upstream';

/** The path after an engine route's prefix; the name is URL-encoded (it may hold a `/`). */
export const LAYER_FILES_PATH = /^(?:\/v[\d.]+)?\/images\/(.+)\/layer-files$/;

/** Entries listed for one image at most; a larger image is listed in part, and says so. */
export const MAX_ENTRIES = 200_000;
/** manifest.json of a save of one image is small; anything larger is not one. */
const MAX_MANIFEST = 1024 * 1024;

/** Where layers sit in the archive layouts engines write (Docker ≤ 24, Docker 25+ and svcd, Podman). */
const LAYER_NAME = /(^|\/)layer\.tar$|^blobs\/sha256\/[0-9a-f]{64}$|^[0-9a-f]{64}\.tar$/;

function typeOf(t: TarEntryType): LayerEntry['type'] {
  return t === 'file' || t === 'directory' || t === 'symlink' || t === 'link' ? t : 'other';
}

interface Collected {
  tarSize: number;
  entries: LayerEntry[];
}

class ArchiveScan {
  readonly layers = new Map<string, Collected>();
  manifest: unknown;
  count = 0;
  truncated = false;

  constructor(private readonly maxEntries: number) {}

  async entry(name: string, size: number, body: Readable): Promise<void> {
    if (name === 'manifest.json' && size <= MAX_MANIFEST) {
      const chunks: Buffer[] = [];
      for await (const c of body) chunks.push(c as Buffer);
      this.manifest = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
    } else if (LAYER_NAME.test(name) && !this.truncated) {
      await this.layer(name, size, body);
    }
  }

  /** A blob that is not a tar (a config in blobs/) is not a layer: it is dropped. */
  private async layer(name: string, tarSize: number, body: Readable): Promise<void> {
    const entries: LayerEntry[] = [];
    try {
      const { stream } = await decompress(body);
      for await (const { header } of readTar(stream)) {
        if (this.count >= this.maxEntries) {
          this.truncated = true;
          break;
        }
        this.count++;
        entries.push({
          path: header.name,
          type: typeOf(header.type),
          size: header.size,
          ...(header.linkname ? { target: header.linkname } : {}),
        });
      }
      this.layers.set(name, { tarSize, entries });
    } catch {
      this.count -= entries.length;
    }
  }

  result(): ImageLayerFiles {
    const manifest = Array.isArray(this.manifest) ? (this.manifest[0] as { Layers?: unknown }) : undefined;
    const paths = Array.isArray(manifest?.Layers) ? (manifest.Layers as string[]) : [];
    const found = paths.map((p) => this.layers.get(p) ?? { tarSize: 0, entries: [] });
    const changes: LayerChange[][] = layerChanges(found.map((l) => l.entries));
    return {
      layers: paths.map((archivePath, i) => ({
        archivePath,
        tarSize: found[i].tarSize,
        changes: changes[i],
      })),
      truncated: this.truncated,
    };
  }
}

export async function sendLayerFiles(
  req: IncomingMessage,
  res: ServerResponse,
  route: Route,
  upstreams: Upstreams,
  name: string,
  maxEntries = MAX_ENTRIES,
): Promise<void> {
  try {
    const saved = await engineGet(route, upstreams, `/images/${encodeURIComponent(name)}/get`);
    if (saved.statusCode !== 200) {
      const body = await readJson(saved);
      return sendError(res, saved.statusCode ?? 502, body.message ?? 'the engine could not save the image');
    }
    req.once('close', () => saved.destroy());
    const scan = new ArchiveScan(maxEntries);
    for await (const { header, body } of readTar(saved)) await scan.entry(header.name, header.size, body);
    if (scan.manifest === undefined)
      return sendError(
        res,
        502,
        'the engine saved the image without a manifest.json: its layers are unknown',
      );
    sendJson(res, 200, scan.result());
  } catch (err) {
    if (!res.headersSent) sendError(res, 502, `could not read the image's layers: ${(err as Error).message}`);
    else res.destroy();
  }
}
