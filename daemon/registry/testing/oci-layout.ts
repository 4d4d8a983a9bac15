// Writes a one-layer OCI image layout (the layer a gzipped tar holding /bin/busybox), for real clients.
import { spawnSync } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { sha256, type Digest } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';

export interface OciImage {
  dir: string;
  manifestDigest: Digest;
  layerDigest: Digest;
  configDigest: Digest;
}

async function writeBlob(dir: string, data: Buffer): Promise<Digest> {
  const digest = sha256(data);
  await writeFile(join(dir, 'blobs/sha256', digest.slice(7)), data);
  return digest;
}

export async function writeBusyboxLayout(dir: string, tag: string, scratch: string): Promise<OciImage> {
  await mkdir(join(dir, 'blobs/sha256'), { recursive: true });
  await mkdir(join(scratch, 'rootfs/bin'), { recursive: true });
  await copyFile('/bin/busybox', join(scratch, 'rootfs/bin/busybox'));
  const tarFile = join(scratch, 'layer.tar');
  const tar = spawnSync(
    'tar',
    [
      '--sort=name',
      '--mtime=@0',
      '--owner=0',
      '--group=0',
      '-C',
      join(scratch, 'rootfs'),
      '-cf',
      tarFile,
      'bin',
    ],
    {
      encoding: 'utf8',
    },
  );
  if (tar.status !== 0) throw new Error(`tar: ${tar.stderr}`);
  // Compressed, as registries carry layers: clients then copy it unchanged.
  const tarData = await readFile(tarFile);
  const layer = gzipSync(tarData);
  const layerDigest = await writeBlob(dir, layer);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['/bin/busybox', 'sh'] },
      rootfs: { type: 'layers', diff_ids: [sha256(tarData)] },
    }),
  );
  const configDigest = await writeBlob(dir, config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: MediaTypes.ociManifest,
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: configDigest,
        size: config.length,
      },
      layers: [
        { mediaType: 'application/vnd.oci.image.layer.v1.tar+gzip', digest: layerDigest, size: layer.length },
      ],
    }),
  );
  const manifestDigest = await writeBlob(dir, manifest);
  await writeFile(join(dir, 'oci-layout'), JSON.stringify({ imageLayoutVersion: '1.0.0' }));
  await writeFile(
    join(dir, 'index.json'),
    JSON.stringify({
      schemaVersion: 2,
      manifests: [
        {
          mediaType: MediaTypes.ociManifest,
          digest: manifestDigest,
          size: manifest.length,
          annotations: { 'org.opencontainers.image.ref.name': tag },
        },
      ],
    }),
  );
  return { dir, manifestDigest, layerDigest, configDigest };
}
