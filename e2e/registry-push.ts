// Pushes a small real image (one gzipped tar layer and its config) to a Registry API V2 server
// with plain HTTP calls, so the e2e has something to browse without needing the engine.
import { gzipSync } from 'node:zlib';
import { makeImage, sha, type ImageParts } from './image-archives';

async function pushBlob(registry: string, repo: string, blob: Buffer): Promise<string> {
  const digest = sha(blob);
  const start = await fetch(`${registry}/v2/${repo}/blobs/uploads/`, { method: 'POST' });
  if (start.status !== 202) throw new Error(`upload start: HTTP ${start.status} ${await start.text()}`);
  const location = new URL(start.headers.get('location')!, registry);
  location.searchParams.set('digest', digest);
  const put = await fetch(location, {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: blob,
  });
  if (put.status !== 201) throw new Error(`upload ${digest}: HTTP ${put.status} ${await put.text()}`);
  return digest;
}

async function putManifest(registry: string, repo: string, ref: string, body: Buffer, type: string) {
  const res = await fetch(`${registry}/v2/${repo}/manifests/${ref}`, {
    method: 'PUT',
    headers: { 'content-type': type },
    body,
  });
  if (res.status !== 201) throw new Error(`manifest: HTTP ${res.status} ${await res.text()}`);
}

const DOCKER_MANIFEST = 'application/vnd.docker.distribution.manifest.v2+json';

/** Pushes an image's layer (gzipped) and config, then its manifest as `ref` (a tag or its digest). */
async function pushParts(
  registry: string,
  repo: string,
  ref: string | undefined,
  parts: ImageParts,
): Promise<{ digest: string; layerSize: number; manifest: Buffer }> {
  const layer = gzipSync(parts.layer);
  const config = parts.config;
  const layerDigest = await pushBlob(registry, repo, layer);
  const configDigest = await pushBlob(registry, repo, config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: DOCKER_MANIFEST,
      config: {
        mediaType: 'application/vnd.docker.container.image.v1+json',
        size: config.length,
        digest: configDigest,
      },
      layers: [
        {
          mediaType: 'application/vnd.docker.image.rootfs.diff.tar.gzip',
          size: layer.length,
          digest: layerDigest,
        },
      ],
    }),
  );
  await putManifest(registry, repo, ref ?? sha(manifest), manifest, DOCKER_MANIFEST);
  return { digest: sha(manifest), layerSize: layer.length, manifest };
}

/** With `runnable`, the layer holds Debian's static busybox and its applet links, so it runs. */
export async function pushTestImage(
  registry: string,
  repo: string,
  tag: string,
  runnable = false,
): Promise<{ digest: string; layerSize: number }> {
  const { digest, layerSize } = await pushParts(registry, repo, tag, makeImage(runnable));
  return { digest, layerSize };
}

/** The same small image as `count` repositories `${prefix}-00`, `${prefix}-01`, …, tag 1.0. */
export async function pushRepositories(registry: string, prefix: string, count: number): Promise<string[]> {
  const parts = makeImage(false);
  const names = Array.from({ length: count }, (_, i) => `${prefix}-${String(i).padStart(2, '0')}`);
  for (const name of names) await pushParts(registry, name, '1.0', parts);
  return names;
}

/** Tags `from`'s manifest again as each of `tags`. */
export async function addTags(registry: string, repo: string, from: string, tags: string[]): Promise<void> {
  const res = await fetch(`${registry}/v2/${repo}/manifests/${from}`, {
    headers: { accept: DOCKER_MANIFEST },
  });
  const body = Buffer.from(await res.arrayBuffer());
  for (const tag of tags) await putManifest(registry, repo, tag, body, DOCKER_MANIFEST);
}

/** An OCI index of two images, linux/amd64 and linux/arm64/v8, tagged `tag`. */
export async function pushTestIndex(registry: string, repo: string, tag: string): Promise<string> {
  const amd64 = makeImage(false);
  const arm64 = makeImage(false, ['echo', 'arm']);
  const config = JSON.parse(arm64.config.toString()) as Record<string, unknown>;
  arm64.config = Buffer.from(JSON.stringify({ ...config, architecture: 'arm64', variant: 'v8' }));
  const entries = [
    {
      image: await pushParts(registry, repo, undefined, amd64),
      platform: { os: 'linux', architecture: 'amd64' },
    },
    {
      image: await pushParts(registry, repo, undefined, arm64),
      platform: { os: 'linux', architecture: 'arm64', variant: 'v8' },
    },
  ];
  const index = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.index.v1+json',
      manifests: entries.map((e) => ({
        mediaType: DOCKER_MANIFEST,
        digest: e.image.digest,
        size: e.image.manifest.length,
        platform: e.platform,
      })),
    }),
  );
  await putManifest(registry, repo, tag, index, 'application/vnd.oci.image.index.v1+json');
  return sha(index);
}
