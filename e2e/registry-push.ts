// Pushes a small real image (one gzipped tar layer and its config) to a Registry API V2 server
// with plain HTTP calls, so the e2e has something to browse without needing the engine.
import { gzipSync } from 'node:zlib';
import { makeImage, sha } from './image-archives';

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

/** With `runnable`, the layer holds Debian's static busybox and its applet links, so it runs. */
export async function pushTestImage(
  registry: string,
  repo: string,
  tag: string,
  runnable = false,
): Promise<{ digest: string; layerSize: number }> {
  const parts = makeImage(runnable);
  const layer = gzipSync(parts.layer);
  const config = parts.config;
  const layerDigest = await pushBlob(registry, repo, layer);
  const configDigest = await pushBlob(registry, repo, config);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.docker.distribution.manifest.v2+json',
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
  const res = await fetch(`${registry}/v2/${repo}/manifests/${tag}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/vnd.docker.distribution.manifest.v2+json' },
    body: manifest,
  });
  if (res.status !== 201) throw new Error(`manifest: HTTP ${res.status} ${await res.text()}`);
  return { digest: sha(manifest), layerSize: layer.length };
}
