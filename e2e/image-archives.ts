// A small real image made on this machine: a root filesystem tar (Debian's static busybox and its
// applet links when runnable) and its config, pushed by registry-push.ts or packed here as a
// `docker save` archive, so the e2e needs no outside registry.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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

export const sha = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;

export interface ImageParts {
  /** The root filesystem as an uncompressed tar (also what `docker import` takes). */
  layer: Buffer;
  /** Layers stacked on it, bottom first. */
  upper?: Buffer[];
  config: Buffer;
}

/** A layer tar of `files` (path → content); a path ending in "/" is a directory. */
export function makeLayer(files: Record<string, string>): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-layer-'));
  try {
    const rootfs = join(dir, 'rootfs');
    mkdirSync(rootfs);
    for (const [p, content] of Object.entries(files)) {
      if (p.endsWith('/')) mkdirSync(join(rootfs, p), { recursive: true });
      else {
        mkdirSync(join(rootfs, p, '..'), { recursive: true });
        writeFileSync(join(rootfs, p), content);
      }
    }
    execFileSync('tar', ['-cf', join(dir, 'layer.tar'), '-C', rootfs, '.']);
    return readFileSync(join(dir, 'layer.tar'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The image with `layer` stacked on top, made by `createdBy` in its history. */
export function withLayer(parts: ImageParts, layer: Buffer, createdBy: string): ImageParts {
  const config = JSON.parse(parts.config.toString()) as {
    rootfs: { diff_ids: string[] };
    history: { created_by: string }[];
  };
  config.rootfs.diff_ids.push(sha(layer));
  config.history.push({ created_by: createdBy });
  return { ...parts, upper: [...(parts.upper ?? []), layer], config: Buffer.from(JSON.stringify(config)) };
}

/** With `cmd` undefined the image has no default command. */
export function makeImage(runnable: boolean, cmd: string[] | undefined = ['cat', '/hello.txt']): ImageParts {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-image-'));
  try {
    const rootfs = join(dir, 'rootfs');
    mkdirSync(join(rootfs, 'bin'), { recursive: true });
    mkdirSync(join(rootfs, 'etc'), { recursive: true });
    writeFileSync(join(rootfs, 'hello.txt'), 'hello from the svc desktop e2e\n');
    if (runnable) {
      copyFileSync('/bin/busybox', join(rootfs, 'bin', 'busybox'));
      chmodSync(join(rootfs, 'bin', 'busybox'), 0o755);
      for (const applet of ['sh', 'echo', 'cat', 'sleep', 'ls', 'top', 'ps', 'true', 'rm']) {
        symlinkSync('busybox', join(rootfs, 'bin', applet));
      }
    }
    execFileSync('tar', ['-cf', join(dir, 'layer.tar'), '-C', rootfs, '.']);
    const layer = readFileSync(join(dir, 'layer.tar'));
    const config = Buffer.from(
      JSON.stringify({
        architecture: 'amd64',
        os: 'linux',
        created: new Date().toISOString(),
        config: { ...(cmd ? { Cmd: cmd } : {}), Env: ['PATH=/bin'] },
        rootfs: { type: 'layers', diff_ids: [sha(layer)] },
        history: [{ created_by: 'e2e fixture' }],
      }),
    );
    return { layer, config };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The image as `docker save NAME` writes it: manifest.json, the config and the layer tar. */
export function saveArchive(parts: ImageParts, name: string): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'e2e-save-'));
  try {
    const configName = `${sha(parts.config).slice(7)}.json`;
    const layerDirs = [parts.layer, ...(parts.upper ?? [])].map((layer) => {
      const layerDir = sha(layer).slice(7);
      mkdirSync(join(dir, 'a', layerDir), { recursive: true });
      writeFileSync(join(dir, 'a', layerDir, 'layer.tar'), layer);
      return layerDir;
    });
    writeFileSync(join(dir, 'a', configName), parts.config);
    writeFileSync(
      join(dir, 'a', 'manifest.json'),
      JSON.stringify([
        { Config: configName, RepoTags: [name], Layers: layerDirs.map((d) => `${d}/layer.tar`) },
      ]),
    );
    execFileSync('tar', ['-cf', join(dir, 'image.tar'), '-C', join(dir, 'a'), '.']);
    return readFileSync(join(dir, 'image.tar'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
