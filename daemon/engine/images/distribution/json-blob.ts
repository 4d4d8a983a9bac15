// Small JSON blobs (manifests, configs) made here rather than fetched: serialised once, described
// by their digest, and put into a sink unless it already has them.
import { Readable } from 'node:stream';
import { MediaTypes } from '../../../lib/media-types';
import type { BlobSink } from './types';
import type { Descriptor, ImageManifest } from '../../../api/manifest-types';
import { digestOf } from '../../../lib/registry-wire/verifying-stream';

export interface JsonBlob {
  bytes: Buffer;
  descriptor: Descriptor;
}

export function jsonBlob(mediaType: string, value: unknown): JsonBlob {
  const bytes = Buffer.from(JSON.stringify(value));
  return { bytes, descriptor: { mediaType, digest: digestOf(bytes), size: bytes.length } };
}

/** A Docker schema2 manifest over a config and layers. */
export function schema2Manifest(config: Descriptor, layers: Descriptor[]): JsonBlob {
  const manifest: ImageManifest = { schemaVersion: 2, mediaType: MediaTypes.dockerManifest, config, layers };
  return jsonBlob(MediaTypes.dockerManifest, manifest);
}

export async function storeBytes(
  sink: BlobSink,
  desc: Descriptor,
  bytes: Buffer,
  signal?: AbortSignal,
): Promise<void> {
  if (await sink.has(desc.digest)) return;
  await sink.write(desc, Readable.from([bytes]), signal);
}
