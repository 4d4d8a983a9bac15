// Reading manifests as registries serve them: OCI and Docker schema2 manifests and indexes, and
// legacy schema1 (signed or not), which is turned into a schema2 image once its layers are known.
import {
  MediaTypes,
  canonicalMediaType,
  isImageIndex,
  isImageManifest,
  isSchema1Manifest,
} from '../../../lib/media-types';
import type { Descriptor, ImageConfig, ImageIndex, ImageManifest } from '../../../api/manifest-types';
import { invalidManifest, manifestMediaType, manifestObject } from '../../../lib/manifest-body';

export interface Schema1Manifest {
  schemaVersion: 1;
  name: string;
  tag: string;
  architecture?: string;
  fsLayers: { blobSum: string }[];
  history: { v1Compatibility: string }[];
  signatures?: { protected: string }[];
}

export type ParsedManifest =
  | { kind: 'index'; mediaType: string; index: ImageIndex }
  | { kind: 'manifest'; mediaType: string; manifest: ImageManifest }
  | { kind: 'schema1'; mediaType: string; schema1: Schema1Manifest };

function checkDescriptor(value: unknown, what: string): Descriptor {
  const d = value as Descriptor;
  if (
    !d ||
    typeof d.digest !== 'string' ||
    !/^[a-z0-9]+(?:[+._-][a-z0-9]+)*:[a-zA-Z0-9=_-]+$/.test(d.digest)
  ) {
    throw invalidManifest(`${what} has no valid digest`);
  }
  if (typeof d.size !== 'number' || d.size < 0) throw invalidManifest(`${what} has no valid size`);
  return { ...d, mediaType: canonicalMediaType(d.mediaType ?? '') };
}

export function parseManifest(bytes: Buffer, contentType?: string | null): ParsedManifest {
  const body = manifestObject(bytes);
  if (!body) throw invalidManifest('not a JSON object');
  const mediaType = manifestMediaType(body, contentType);
  if (isImageIndex(mediaType)) {
    if (!Array.isArray(body.manifests)) throw invalidManifest('index without manifests');
    const manifests = body.manifests.map((m, i) => checkDescriptor(m, `manifests[${i}]`));
    return { kind: 'index', mediaType, index: { ...(body as unknown as ImageIndex), manifests } };
  }
  if (isImageManifest(mediaType)) {
    if (!Array.isArray(body.layers)) throw invalidManifest('manifest without layers');
    const config = checkDescriptor(body.config, 'config');
    const layers = body.layers.map((l, i) => checkDescriptor(l, `layers[${i}]`));
    return {
      kind: 'manifest',
      mediaType,
      manifest: { ...(body as unknown as ImageManifest), config, layers },
    };
  }
  if (isSchema1Manifest(mediaType)) {
    const schema1 = body as unknown as Schema1Manifest;
    if (
      !Array.isArray(schema1.fsLayers) ||
      !Array.isArray(schema1.history) ||
      schema1.fsLayers.length !== schema1.history.length
    ) {
      throw invalidManifest('schema1 manifest with mismatched fsLayers and history');
    }
    return { kind: 'schema1', mediaType, schema1 };
  }
  throw invalidManifest(`unsupported manifest media type ${mediaType}`);
}

interface V1Compatibility {
  id?: string;
  created?: string;
  author?: string;
  comment?: string;
  throwaway?: boolean;
  container_config?: { Cmd?: string[] };
  [key: string]: unknown;
}

function v1History(schema1: Schema1Manifest): V1Compatibility[] {
  // schema1 lists the top layer first.
  return schema1.history.map((h) => JSON.parse(h.v1Compatibility) as V1Compatibility).reverse();
}

/** The layers a schema1 manifest really has, bottom first (throwaway entries carry no layer). */
export function schema1Layers(schema1: Schema1Manifest): Descriptor[] {
  const history = v1History(schema1);
  const sums = [...schema1.fsLayers].reverse();
  return sums
    .filter((_, i) => !history[i].throwaway)
    .map((l) => ({ mediaType: MediaTypes.dockerLayerGzip, digest: l.blobSum, size: -1 }));
}

/** Docker's conversion of a schema1 image to a config, given the layers' uncompressed digests. */
export function schema1Config(schema1: Schema1Manifest, diffIds: string[]): Buffer {
  const history = v1History(schema1);
  const top = { ...history[history.length - 1] };
  for (const key of ['id', 'parent', 'Size', 'parent_id', 'layer_id', 'throwaway']) delete top[key];
  const config: ImageConfig = {
    ...top,
    rootfs: { type: 'layers', diff_ids: diffIds },
    history: history.map((h) => ({
      created: h.created,
      created_by: (h.container_config?.Cmd ?? []).join(' '),
      ...(h.author ? { author: h.author } : {}),
      ...(h.comment ? { comment: h.comment } : {}),
      ...(h.throwaway ? { empty_layer: true } : {}),
    })),
  };
  return Buffer.from(JSON.stringify(config));
}
