// Pushes a small real image (one gzipped tar layer and its config) to a Registry API V2 server
// with plain HTTP calls, so the e2e has something to browse without needing the engine.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

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
  const dir = mkdtempSync(join(tmpdir(), 'e2e-image-'));
  try {
    const rootfs = join(dir, 'rootfs');
    mkdirSync(join(rootfs, 'bin'), { recursive: true });
    writeFileSync(join(rootfs, 'hello.txt'), 'hello from the svc desktop e2e\n');
    if (runnable) {
      copyFileSync('/bin/busybox', join(rootfs, 'bin', 'busybox'));
      chmodSync(join(rootfs, 'bin', 'busybox'), 0o755);
      for (const applet of ['sh', 'echo', 'cat', 'sleep', 'ls', 'top', 'ps']) {
        symlinkSync('busybox', join(rootfs, 'bin', applet));
      }
    }
    execFileSync('tar', ['-czf', join(dir, 'layer.tar.gz'), '-C', rootfs, '.']);
    const layer = readFileSync(join(dir, 'layer.tar.gz'));
    const diffId = sha(gunzipSync(layer));
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        config: { Cmd: ['cat', '/hello.txt'], Env: ['PATH=/bin'] },
        rootfs: { type: 'layers', diff_ids: [diffId] },
        history: [{ created_by: 'e2e fixture' }],
      }),
    );
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
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
