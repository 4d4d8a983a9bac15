// A small real image for tests: a root filesystem built from the host's static /bin/busybox
// (Debian's busybox-static), every applet a symlink to it, with /etc/passwd and /etc/group
// (root and an unprivileged `svc` user) and /tmp, imported through the Engine API.
import { execFileSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { buffer } from 'node:stream/consumers';
import { TarWriter } from '../lib/tar/tar-writer';
import type { EngineApi } from './engine-client';

const mtime = new Date(1_700_000_000_000);

export const busyboxUser = { name: 'svc', uid: 1000, gid: 1000 };

/** The rootfs tar (uncompressed). Applets come from `busybox --list`. */
export async function busyboxRootfsTar(): Promise<Buffer> {
  const applets = execFileSync('/bin/busybox', ['--list'], { encoding: 'utf8' })
    .split('\n')
    .filter((a) => a && a !== 'busybox' && /^[\w.[\]-]+$/.test(a));
  const writer = new TarWriter();
  const out = buffer(writer.stream);
  const dir = (name: string, mode = 0o755) => writer.add({ name, type: 'directory', mode, mtime });
  const file = (name: string, content: Buffer | string, mode = 0o644) =>
    writer.add({ name, mode, mtime }, content);
  for (const d of ['bin', 'etc', 'home', 'usr', 'usr/bin', 'var', 'dev', 'proc', 'sys']) await dir(d);
  await dir('root', 0o700);
  await dir('tmp', 0o1777);
  await dir(`home/${busyboxUser.name}`);
  await file('bin/busybox', await readFile('/bin/busybox'), 0o755);
  for (const applet of applets) {
    await writer.add({ name: `bin/${applet}`, type: 'symlink', linkname: 'busybox', mode: 0o777, mtime });
  }
  await writer.add({
    name: 'usr/bin/env',
    type: 'symlink',
    linkname: '../../bin/busybox',
    mode: 0o777,
    mtime,
  });
  const { name, uid, gid } = busyboxUser;
  await file(
    'etc/passwd',
    `root:x:0:0:root:/root:/bin/sh\n${name}:x:${uid}:${gid}:${name}:/home/${name}:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n`,
  );
  await file('etc/group', `root:x:0:\n${name}:x:${gid}:\nnogroup:x:65534:\n`);
  await writer.finish();
  return out;
}

/** Imports the busybox rootfs into an engine as `ref` (CMD ["sh"], a PATH); returns the image ID. */
export async function importBusybox(svcd: EngineApi, ref = 'busybox:latest'): Promise<string> {
  const colon = ref.lastIndexOf(':');
  const [repo, tag] =
    colon > ref.lastIndexOf('/') ? [ref.slice(0, colon), ref.slice(colon + 1)] : [ref, 'latest'];
  const query = new URLSearchParams({ fromSrc: '-', repo, tag });
  query.append('changes', 'CMD ["sh"]');
  query.append('changes', 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin');
  const res = await svcd.request('POST', `/images/create?${query}`, {
    body: await busyboxRootfsTar(),
    headers: { 'Content-Type': 'application/x-tar' },
  });
  const messages = res
    .text()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { status?: string; error?: string });
  const failed = messages.find((m) => m.error);
  if (res.status !== 200 || failed) {
    throw new Error(`import of ${ref} failed (${res.status}): ${failed?.error ?? res.text()}`);
  }
  const id = messages.at(-1)?.status;
  if (!id?.startsWith('sha256:')) throw new Error(`import of ${ref} answered no image ID: ${res.text()}`);
  return id;
}
