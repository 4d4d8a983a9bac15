// What svcd's layer applier makes of pulled layers: whiteouts, opaque directories, links, devices
// and binary xattrs as a container sees them, and hostile layers refused with nothing written
// outside the snapshot and no snapshot left half written.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { buffer } from 'node:stream/consumers';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { startDistribution, type Distribution } from '../../../testing/distribution';
import { DirectoryBlobStore } from '../../../engine/testing/directory-blob-store';
import { buildImage, busyboxLayer } from '../../../engine/testing/test-image';
import { RegistryClient } from '../../../engine/images/distribution/registry-client';
import { pushImage } from '../../../engine/images/distribution/push';
import { ContainerdClient } from '../../../runtime/containerd/client';
import { sha256 } from '../../../lib/digest';
import { TarWriter } from '../../../lib/tar/tar-writer';
import type { TarHeaderInput } from '../../../lib/tar/tar-header';

const run = promisify(execFile);
let svcd: SvcdInstance;
let registry: Distribution;
let scratch: string;
/** A directory outside svcd that hostile layers aim at. */
let outside: string;
const mtime = new Date(1_700_000_000_000);
/** An xattr value that is not UTF-8. */
const binaryXattr = Buffer.from([0x00, 0xff, 0x80, 0x61, 0xc3]);

async function tar(entries: [TarHeaderInput, string?][]): Promise<Buffer> {
  const writer = new TarWriter();
  const out = buffer(writer.stream);
  for (const [header, body] of entries) await writer.add({ mtime, ...header }, body);
  await writer.finish();
  return out;
}

async function push(repository: string, layers: Buffer[]): Promise<string[]> {
  const store = new DirectoryBlobStore(path.join(scratch, repository));
  const image = await buildImage(store, layers);
  await pushImage({
    client: new RegistryClient({ host: registry.host }),
    repository,
    tag: '1',
    target: image.manifest,
    source: store,
  });
  return image.diffIds;
}

async function pull(repository: string): Promise<string | undefined> {
  const res = await svcd.request('POST', `/images/create?fromImage=${registry.host}/${repository}&tag=1`);
  assert.equal(res.status, 200, res.text());
  return res
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => (JSON.parse(l) as { error?: string }).error)
    .find(Boolean);
}

/** Runs `script` in a container of the image; its output. */
async function runIn(image: string, script: string): Promise<string> {
  const created = await svcd.request('POST', '/containers/create', {
    body: { Image: image, Cmd: ['/bin/busybox', 'sh', '-c', script], Tty: true },
  });
  assert.equal(created.status, 201, created.text());
  const { Id } = created.json<{ Id: string }>();
  assert.equal((await svcd.request('POST', `/containers/${Id}/start`)).status, 204);
  await svcd.request('POST', `/containers/${Id}/wait`);
  const logs = (await svcd.request('GET', `/containers/${Id}/logs?stdout=1&stderr=1`)).text();
  await svcd.request('DELETE', `/containers/${Id}?force=1`);
  return logs.replace(/\r/g, '');
}

function containerd(): ContainerdClient {
  return ContainerdClient.connect(path.join(svcd.dataRoot, 'containerd', 'containerd.sock'), 'svc');
}

/** The snapshots in progress: an unpack that failed must leave none. */
async function activeSnapshots(): Promise<string[]> {
  const client = containerd();
  try {
    return (await client.snapshots.list()).filter((s) => s.kind !== 'COMMITTED').map((s) => s.name);
  } finally {
    client.close();
  }
}

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'images-layers-'));
  outside = path.join(scratch, 'outside');
  await mkdir(outside);
  [registry, svcd] = await Promise.all([startDistribution(), startSvcd()]);
});

after(async () => {
  await destroySvcd(svcd);
  await registry?.stop();
  await rm(scratch, { recursive: true, force: true });
});

test('whiteouts, opaque directories, links, fifos and binary xattrs round-trip', async () => {
  const lower = await tar([
    [{ name: 'keep', mode: 0o640, uid: 7, gid: 8 }, 'kept\n'],
    [{ name: 'gone' }, 'deleted\n'],
    [{ name: 'dir', type: 'directory', mode: 0o750 }],
    [{ name: 'dir/old' }, 'old\n'],
    [{ name: 'deep', type: 'directory', mode: 0o711, uid: 5 }],
    [{ name: 'xattr', pax: { 'SCHILY.xattr.user.bin': binaryXattr.toString('latin1') } }, 'x\n'],
  ]);
  // A hard link names an earlier entry of its layer.
  const upper = await tar([
    [{ name: '.wh.gone' }],
    [{ name: 'dir/.wh..wh..opq' }],
    [{ name: 'dir/new' }, 'new\n'],
    [{ name: 'deep/nested/file', mode: 0o4755 }, 'suid\n'],
    [{ name: 'keep2' }, 'linked\n'],
    [{ name: 'hard', type: 'link', linkname: 'keep2' }],
    [{ name: 'fifo', type: 'fifo', mode: 0o600 }],
    [{ name: 'abs', type: 'symlink', linkname: '/keep' }],
  ]);
  const diffIds = await push('layers', [await busyboxLayer(), lower, upper]);
  assert.equal(await pull('layers'), undefined);

  const out = await runIn(
    `${registry.host}/layers:1`,
    [
      'ls -a / | grep -v "^\\.\\.\\?$" | tr "\\n" " "; echo',
      'ls /dir; cat /dir/new /keep /abs /hard',
      'stat -c "%n %a %u:%g" /keep /dir /deep /deep/nested/file',
      'stat -c "%n %F %h" /fifo /hard',
    ].join('; '),
  );
  // Besides the runtime's dev, etc, proc and sys: gone is whited out.
  assert.match(out, /^abs bin deep dev dir etc fifo hard keep keep2 proc sys xattr $/m);
  assert.match(out, /^new\nnew\nkept\nkept\nlinked\n/m, 'the opaque dir holds only new');
  assert.match(out, /^\/keep 640 7:8$/m);
  assert.match(out, /^\/dir 750 0:0$/m);
  assert.match(out, /^\/deep 711 5:0$/m, 'a directory made for an entry inherits from below');
  assert.match(out, /^\/deep\/nested\/file 4755 0:0$/m);
  assert.match(out, /^\/fifo fifo 1$/m);
  assert.match(out, /^\/hard regular file 2$/m);

  // The xattr as the container's root file system has it, through a view of the top snapshot.
  const chain = diffIds.reduce((parent, id) => (parent ? sha256(`${parent} ${id}`) : id), '');
  const client = containerd();
  const view = path.join(scratch, 'view');
  await mkdir(view);
  try {
    const key = `test-view-${randomBytes(4).toString('hex')}`;
    const [m] = await client.snapshots.view(key, chain);
    await run('mount', ['-t', m.type, m.source, '-o', m.options.join(','), view]);
    try {
      const { stdout } = await run('python3', [
        '-c',
        'import os,sys; print(os.getxattr(sys.argv[1], "user.bin").hex())',
        path.join(view, 'xattr'),
      ]);
      assert.equal(stdout.trim(), binaryXattr.toString('hex'));
    } finally {
      await run('umount', [view]);
      // A view outside a lease may be garbage collected already.
      await client.snapshots.remove(key).catch(() => undefined);
    }
  } finally {
    client.close();
  }
});

test('a layer entry climbing out of the snapshot is refused, nothing written', async () => {
  const name = `escape-${randomBytes(4).toString('hex')}`;
  const climbing = `../../../../../../../../../../${outside.slice(1)}/${name}`;
  await push('climb', [await tar([[{ name: climbing }, 'pwned\n']])]);
  assert.match((await pull('climb')) ?? '', /path escapes the root/);
  assert.deepEqual(await readdir(outside), []);
  assert.deepEqual(await activeSnapshots(), []);
  assert.equal((await svcd.request('GET', `/images/${registry.host}/climb:1/json`)).status, 404);
});

test('a symlink out of the snapshot is refused, an absolute one stays inside', async () => {
  const relative = '../'.repeat(12) + outside.slice(1);
  await push('symlink-out', [
    await tar([[{ name: 'out', type: 'symlink', linkname: relative }], [{ name: 'out/planted' }, 'pwned\n']]),
  ]);
  assert.match((await pull('symlink-out')) ?? '', /symlink target .* escapes the root/);
  assert.deepEqual(await activeSnapshots(), []);

  // An absolute target is resolved as if the snapshot were `/`: the entry lands inside it.
  await push('symlink-abs', [
    await busyboxLayer(),
    await tar([[{ name: 'abs', type: 'symlink', linkname: outside }], [{ name: 'abs/planted' }, 'inside\n']]),
  ]);
  assert.equal(await pull('symlink-abs'), undefined);
  assert.deepEqual(await readdir(outside), []);
  assert.ok(!existsSync(path.join(outside, 'planted')));
  const out = await runIn(`${registry.host}/symlink-abs:1`, `cat ${outside}/planted`);
  assert.equal(out, 'inside\n');
});
