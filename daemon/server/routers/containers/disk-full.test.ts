// svcd with its data root (containerd's too) on a 64 MiB tmpfs: an image load and an archive PUT
// that do not fit answer an error naming "no space left on device", and svcd goes on serving.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sha256 } from '../../../lib/digest';
import { importBusybox } from '../../../testing/busybox-image';
import type { EngineResponse } from '../../../testing/engine-client';
import { mountSmallTmpfs, type SmallTmpfs } from '../../../testing/small-tmpfs';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { tarOf } from '../../../testing/tar-of';

const MiB = 1 << 20;
const mtime = new Date(1_700_000_000_000);

/** A `docker save` archive of one image whose only layer holds `content` as /big. */
async function imageArchive(content: Buffer): Promise<Buffer> {
  const layer = await tarOf([[{ name: 'big', mode: 0o644, mtime }, content]]);
  const config = Buffer.from(
    JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: { Cmd: ['sh'] },
      rootfs: { type: 'layers', diff_ids: [sha256(layer)] },
    }),
  );
  const configName = `${sha256(config).slice('sha256:'.length)}.json`;
  const manifest = [{ Config: configName, RepoTags: ['big:latest'], Layers: ['layer/layer.tar'] }];
  return tarOf([
    [{ name: configName, mode: 0o644, mtime }, config],
    [{ name: 'layer', type: 'directory', mode: 0o755, mtime }],
    [{ name: 'layer/layer.tar', mode: 0o644, mtime }, layer],
    [{ name: 'manifest.json', mode: 0o644, mtime }, JSON.stringify(manifest)],
  ]);
}

/** The error an engine answers as a whole (status, JSON message) or inside a progress stream. */
async function errorOf(answer: Promise<EngineResponse>): Promise<string> {
  const res = await answer;
  if (res.status >= 400) return `${res.status} ${res.json<{ message: string }>().message}`;
  const lines = res
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { error?: string });
  return `${res.status} ${lines.find((l) => l.error)?.error ?? '(no error)'}`;
}

describe('svcd on a full disk', () => {
  let dir: string | undefined;
  let disk: SmallTmpfs | undefined;
  let svcd: SvcdInstance | undefined;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcd-'));
    disk = await mountSmallTmpfs(64, join(dir, 'data'));
    svcd = await startSvcd({ dir });
    await importBusybox(svcd);
  });
  after(async () => {
    // destroySvcd unmounts what is under its directory and removes it; dispose() makes sure.
    await destroySvcd(svcd);
    await disk?.dispose();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  async function stillServing(): Promise<void> {
    const s = svcd!;
    const images = await s.request('GET', '/images/json');
    assert.equal(images.status, 200);
    assert.deepEqual(
      images.json<Array<{ RepoTags: string[] }>>().flatMap((i) => i.RepoTags),
      ['busybox:latest'],
      'the image that did not fit is not listed',
    );
    assert.equal((await s.request('GET', '/containers/json?all=1')).status, 200);
    assert.equal((await s.request('GET', '/_ping')).text(), 'OK');
  }

  /** A full disk's error, answered even though the body was still coming when the write failed. */
  function expectNoSpace(error: string, what: string): void {
    // A 500, or an error line in the load's progress stream (200) once it has started, as dockerd.
    assert.match(error, /^(500|200) .*no space left on device/, what);
  }

  test('an image load that does not fit: an error, svcd still serves, loads again once space is freed', async () => {
    const s = svcd!;
    const free = disk!.free();
    const failed = s.request('POST', '/images/load?quiet=1', {
      body: await imageArchive(randomBytes(80 * MiB)),
      headers: { 'Content-Type': 'application/x-tar' },
    });
    expectNoSpace(await errorOf(failed), 'image load');
    await stillServing();
    assert.ok(disk!.free() >= free - MiB, `the load gave its space back: ${disk!.free()} of ${free}`);
    const small = s.request('POST', '/images/load?quiet=1', {
      body: await imageArchive(randomBytes(MiB)),
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(await errorOf(small), '200 (no error)');
    assert.equal((await s.request('DELETE', '/images/big:latest')).status, 200);
  });

  test('an archive PUT that does not fit: an error, no partial file, the container can be removed', async () => {
    const s = svcd!;
    const created = await s.request('POST', '/containers/create', { body: { Image: 'busybox' } });
    assert.equal(created.status, 201, created.text());
    const id = created.json<{ Id: string }>().Id;
    const free = disk!.free();
    const archive = await tarOf([[{ name: 'big', mode: 0o644, mtime }, randomBytes(80 * MiB)]]);
    const failed = s.request('PUT', `/containers/${id}/archive?path=/tmp`, {
      body: archive,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    expectNoSpace(await errorOf(failed), 'archive PUT');
    await stillServing();
    assert.equal((await s.request('HEAD', `/containers/${id}/archive?path=/tmp/big`)).status, 404);
    assert.ok(disk!.free() >= free - MiB, `the half-written file is gone: ${disk!.free()} of ${free}`);
    const small = await tarOf([[{ name: 'small', mode: 0o644, mtime }, 'fits']]);
    const put = await s.request('PUT', `/containers/${id}/archive?path=/tmp`, {
      body: small,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(put.status, 200, put.text());
    const removed = await s.request('DELETE', `/containers/${id}`);
    assert.equal(removed.status, 204, removed.text());
  });
});
