// Writes the `docker save` tar as Docker 25+ does: the OCI layout (oci-layout, index.json,
// blobs/sha256/…, layers uncompressed) plus Docker's manifest.json and repositories, and what
// older loaders read: the legacy per-layer directories (VERSION, json, layer.tar → the blob) and
// each config as `<hex>.json` at the top.
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { InvalidParameterError } from '../../../api/errors';
import { MediaTypes, isImageManifest, isNondistributableLayer } from '../../../lib/media-types';
import { TarWriter } from '../../../lib/tar/tar-writer';
import { parseManifest } from '../distribution/manifest';
import { jsonBlob } from '../distribution/json-blob';
import type { BlobSource } from '../distribution/types';
import type { Descriptor, ImageConfig, ImageManifest } from '../../../api/manifest-types';
import { DigestMismatchError, digestOf } from '../../../lib/registry-wire/verifying-stream';
import { familiarName, parseReference, referenceString, withDefaultTag } from '../../shared/reference';
import type { OpenUncompressed } from './uncompressed-layers';

export interface SaveImage {
  /** A single-platform manifest readable from the source. */
  manifest: Descriptor;
  /** Names to record (`busybox:latest`, `localhost:5000/x:1`); empty when saved by ID. */
  names: string[];
}

export interface SaveSource extends BlobSource {
  /** The layer uncompressed (its digest is the diff ID); see spoolUncompressed. */
  openUncompressed: OpenUncompressed;
}

/** Docker's fixed timestamp for archive entries it has no time for. */
const EPOCH = new Date(0);

const sha256Hex = (data: string) => createHash('sha256').update(data).digest('hex');
const blobName = (digest: string) => `blobs/${digest.replace(':', '/')}`;
const legacyConfigName = (digest: string) => `${digest.slice(digest.indexOf(':') + 1)}.json`;

async function readVerified(source: BlobSource, desc: Descriptor, signal?: AbortSignal): Promise<Buffer> {
  const bytes = await buffer(await source.open(desc, signal));
  const actual = digestOf(bytes, desc.digest);
  if (actual !== desc.digest) throw new DigestMismatchError(desc.digest, actual);
  return bytes;
}

/** The tar stream of `images`; write errors surface as errors of the stream. */
export function saveImages(images: SaveImage[], source: SaveSource, signal?: AbortSignal): Readable {
  const writer = new TarWriter();
  writeArchive(writer, images, source, signal).catch((err: Error) => writer.abort(err));
  return writer.stream;
}

async function writeArchive(
  writer: TarWriter,
  images: SaveImage[],
  source: SaveSource,
  signal?: AbortSignal,
): Promise<void> {
  const written = new Set<string>();
  const layerSizes = new Map<string, number>();
  const dockerManifest: { Config: string; RepoTags: string[] | null; Layers: string[] }[] = [];
  const repositories: Record<string, Record<string, string>> = {};
  const index: Descriptor[] = [];
  const addFile = async (name: string, data: Buffer | string) => {
    if (written.has(name)) return;
    written.add(name);
    await writer.add({ name, mtime: EPOCH }, data);
  };
  await writer.add({ name: 'blobs', type: 'directory', mtime: EPOCH });
  await writer.add({ name: 'blobs/sha256', type: 'directory', mtime: EPOCH });

  for (const image of images) {
    if (!isImageManifest(image.manifest.mediaType)) {
      throw new InvalidParameterError(`cannot save ${image.manifest.digest}: not a single-platform manifest`);
    }
    const parsed = parseManifest(
      await readVerified(source, image.manifest, signal),
      image.manifest.mediaType,
    );
    const manifest = (parsed as { manifest: ImageManifest }).manifest;
    const configBytes = await readVerified(source, manifest.config, signal);
    const config = JSON.parse(configBytes.toString('utf8')) as ImageConfig;
    const diffIds = config.rootfs?.diff_ids ?? [];
    if (diffIds.length !== manifest.layers.length) {
      throw new InvalidParameterError(
        `image ${manifest.config.digest}: config lists ${diffIds.length} layers, manifest ${manifest.layers.length}`,
      );
    }
    await addFile(blobName(manifest.config.digest), configBytes);
    // Docker before 25 wrote the config here, and loaders written for its archives look here.
    await addFile(legacyConfigName(manifest.config.digest), configBytes);

    const ociLayers: Descriptor[] = [];
    const v1Ids: string[] = [];
    let chainId = '';
    for (const [i, layer] of manifest.layers.entries()) {
      const diffId = diffIds[i];
      if (isNondistributableLayer(layer.mediaType))
        throw new InvalidParameterError(`cannot save foreign layer ${layer.digest}`);
      const name = blobName(diffId);
      let size = layerSizes.get(diffId);
      if (size === undefined) {
        const uncompressed = await source.openUncompressed(layer, diffId, signal);
        size = uncompressed.size;
        written.add(name);
        await writer.add({ name, size, mtime: EPOCH }, uncompressed.stream);
        layerSizes.set(diffId, size);
      }
      ociLayers.push({ mediaType: MediaTypes.ociLayer, digest: diffId, size });
      chainId = chainId === '' ? diffId : `sha256:${sha256Hex(`${chainId} ${diffId}`)}`;
      const parent = v1Ids[i - 1];
      const top = i === manifest.layers.length - 1;
      const v1Id = sha256Hex(
        JSON.stringify({ chainId, parent: parent ?? '', config: top ? manifest.config.digest : '' }),
      );
      v1Ids.push(v1Id);
      await writeLegacyLayer(writer, written, v1Id, parent, name, top ? config : undefined);
    }

    const { bytes: ociBytes, descriptor: ociDesc } = jsonBlob(MediaTypes.ociManifest, {
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: { mediaType: MediaTypes.ociConfig, digest: manifest.config.digest, size: manifest.config.size },
      layers: ociLayers,
    });
    await addFile(blobName(ociDesc.digest), ociBytes);

    const refs = image.names.map((n) => withDefaultTag(parseReference(n))).filter((r) => r.tag);
    dockerManifest.push({
      Config: blobName(manifest.config.digest),
      RepoTags: refs.length ? refs.map((r) => `${familiarName(r)}:${r.tag}`) : null,
      Layers: ociLayers.map((l) => blobName(l.digest)),
    });
    for (const ref of refs) {
      (repositories[familiarName(ref)] ??= {})[ref.tag!] = v1Ids[v1Ids.length - 1] ?? '';
      index.push({
        ...ociDesc,
        annotations: {
          'io.containerd.image.name': referenceString(ref),
          'org.opencontainers.image.ref.name': ref.tag!,
        },
      });
    }
    if (refs.length === 0) index.push(ociDesc);
  }

  await addFile(
    'index.json',
    JSON.stringify({ schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests: index }),
  );
  await addFile('manifest.json', JSON.stringify(dockerManifest));
  if (Object.keys(repositories).length > 0) await addFile('repositories', JSON.stringify(repositories));
  await addFile('oci-layout', JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writer.finish();
}

/** `<v1id>/VERSION`, `<v1id>/json` and `<v1id>/layer.tar` (a symlink to the blob). */
async function writeLegacyLayer(
  writer: TarWriter,
  written: Set<string>,
  v1Id: string,
  parent: string | undefined,
  blob: string,
  topConfig: ImageConfig | undefined,
): Promise<void> {
  if (written.has(v1Id)) return;
  written.add(v1Id);
  const json: Record<string, unknown> = topConfig
    ? Object.fromEntries(Object.entries(topConfig).filter(([k]) => k !== 'rootfs' && k !== 'history'))
    : { created: '1970-01-01T00:00:00Z', container_config: {} };
  json.id = v1Id;
  if (parent) json.parent = parent;
  await writer.add({ name: v1Id, type: 'directory', mtime: EPOCH });
  await writer.add({ name: `${v1Id}/VERSION`, mtime: EPOCH }, '1.0');
  await writer.add({ name: `${v1Id}/json`, mtime: EPOCH }, JSON.stringify(json));
  await writer.add({ name: `${v1Id}/layer.tar`, type: 'symlink', linkname: `../${blob}`, mtime: EPOCH });
}
