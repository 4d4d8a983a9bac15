// Plugins in a V2 registry, with the engine's registry client: a schema2 manifest whose config is
// `application/vnd.docker.plugin.v1+json` (config.json with the rootfs' diff_ids) and whose
// layers are the rootfs as gzip tars. Pull reads the config first, so the privileges can be
// checked before a layer is fetched; every blob is verified against its digest as it streams.
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { InvalidParameterError } from '../../api/errors';
import type { Emit } from '../../api/image-types';
import type { PluginConfig } from '../../api/plugin-types';
import { MediaTypes } from '../../lib/media-types';
import { extractTar } from '../shared/tar-extract';
import { tarSources } from '../shared/tar-directory';
import { decodeAuthConfig } from '../images/distribution/auth-config';
import { RegistryClient } from '../images/distribution/registry-client';
import type { Descriptor } from '../../api/manifest-types';
import { parseReference, referenceString, withDefaultTag, type Reference } from '../shared/reference';
import { parsePluginConfig } from './plugin-config';

export interface RegistryOptions {
  insecureRegistries: string[];
  userAgent: string;
}

export interface RemotePlugin {
  ref: Reference;
  client: RegistryClient;
  config: PluginConfig;
  layers: Descriptor[];
}

/** Reads the manifest and config of the plugin `remote` names (tag `latest` when none). */
export async function fetchRemotePlugin(
  remote: string,
  auth: string | undefined,
  opts: RegistryOptions,
  signal?: AbortSignal,
): Promise<RemotePlugin> {
  const ref = withDefaultTag(parseReference(remote));
  const client = RegistryClient.forReference(ref, { ...opts, auth: decodeAuthConfig(auth) });
  const fetched = await client.getManifest(ref.path, ref.digest ?? ref.tag!, signal);
  if (
    fetched.parsed.kind !== 'manifest' ||
    fetched.parsed.manifest.config.mediaType !== MediaTypes.dockerPluginConfig
  ) {
    throw new InvalidParameterError(
      `${referenceString(ref)} is not a plugin: its manifest's config is not ${MediaTypes.dockerPluginConfig}`,
    );
  }
  const { manifest } = fetched.parsed;
  const config = parsePluginConfig(await client.readBlob(ref.path, manifest.config, signal));
  return { ref, client, config, layers: manifest.layers };
}

/** Fetches the rootfs layers into `rootfs`, in order. */
export async function fetchRootfs(
  remote: RemotePlugin,
  rootfs: string,
  emit: Emit,
  signal?: AbortSignal,
): Promise<void> {
  await mkdir(rootfs, { recursive: true, mode: 0o755 });
  for (const layer of remote.layers) {
    emit({ status: 'Downloading', id: layer.digest.slice(7, 19) });
    const stream = await remote.client.openBlob(remote.ref.path, layer, { signal });
    await extractTar(stream, { root: rootfs, dir: '/', noOverwriteDirNonDir: false, keepOwners: true });
    emit({ status: 'Download complete', id: layer.digest.slice(7, 19) });
  }
}

function hashing(hash: ReturnType<typeof createHash>, count: { bytes: number }): Transform {
  return new Transform({
    transform(chunk: Buffer, _enc, done) {
      hash.update(chunk);
      count.bytes += chunk.length;
      done(null, chunk);
    },
  });
}

/** Pushes the plugin as `name` (its registry and repository; tag `latest` when none). */
export async function pushPlugin(
  name: string,
  config: PluginConfig,
  rootfs: string,
  tmpDir: string,
  req: { auth?: string; emit: Emit; signal?: AbortSignal },
  opts: RegistryOptions,
): Promise<void> {
  const ref = withDefaultTag(parseReference(name));
  const client = RegistryClient.forReference(ref, { ...opts, auth: decodeAuthConfig(req.auth) });
  req.emit({ status: `The push refers to repository [${referenceString({ ...ref, tag: undefined })}]` });
  const layerFile = join(tmpDir, 'layer.tar.gz');
  try {
    const diff = createHash('sha256');
    const blob = createHash('sha256');
    const raw = { bytes: 0 };
    const packed = { bytes: 0 };
    await pipeline(
      tarSources([{ hostPath: rootfs, name: '' }]),
      hashing(diff, raw),
      createGzip(),
      hashing(blob, packed),
      createWriteStream(layerFile),
    );
    const layer: Descriptor = {
      mediaType: MediaTypes.dockerLayerGzip,
      digest: `sha256:${blob.digest('hex')}`,
      size: (await stat(layerFile)).size,
    };
    const configBytes = Buffer.from(
      JSON.stringify({ ...config, rootfs: { type: 'layers', diff_ids: [`sha256:${diff.digest('hex')}`] } }),
    );
    const configDesc: Descriptor = {
      mediaType: MediaTypes.dockerPluginConfig,
      digest: `sha256:${createHash('sha256').update(configBytes).digest('hex')}`,
      size: configBytes.length,
    };
    const short = layer.digest.slice(7, 19);
    if (await client.blobExists(ref.path, layer.digest, req.signal)) {
      req.emit({ status: 'Layer already exists', id: short });
    } else {
      req.emit({ status: 'Pushing', id: short });
      await client.uploadBlob(ref.path, layer, createReadStream(layerFile), { signal: req.signal });
      req.emit({ status: 'Pushed', id: short });
    }
    if (!(await client.blobExists(ref.path, configDesc.digest, req.signal))) {
      const body = new PassThrough();
      body.end(configBytes);
      await client.uploadBlob(ref.path, configDesc, body, { signal: req.signal });
    }
    const manifest = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.dockerManifest,
        config: configDesc,
        layers: [layer],
      }),
    );
    const digest = await client.putManifest(
      ref.path,
      ref.tag!,
      MediaTypes.dockerManifest,
      manifest,
      req.signal,
    );
    req.emit({ status: `${ref.tag}: digest: ${digest} size: ${manifest.length}` });
  } finally {
    await rm(layerFile, { force: true });
  }
}
