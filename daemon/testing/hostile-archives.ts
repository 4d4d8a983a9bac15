// Archives an attacker would send to archive PUT, image load or a build context: entries that
// climb out of the extraction root (`../`, absolute names, through symlinks and hard links),
// device files, truncated tars, and a decompression bomb (a small gzip that expands hugely).
// Each escape aims at `canary`, a directory outside every data root that must stay empty.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';
import type { TarHeaderInput } from '../lib/tar/tar-header';
import { TarWriter } from '../lib/tar/tar-writer';
import { tarOf } from './tar-of';

export interface HostileArchive {
  name: string;
  body: Buffer;
}

type Entries = Array<[TarHeaderInput, (string | Buffer)?]>;

/** The escapes, as tar entries, writing (if they worked) into `canary` or next to the root. */
function escapeEntries(canary: string, marker: string): Array<[string, Entries]> {
  const up = '../'.repeat(12);
  return [
    ['dot-dot file', [[{ name: `${up}${canary.slice(1)}/${marker}-dotdot` }, 'x']]],
    ['dot-dot beside root', [[{ name: `../${marker}-beside` }, 'x']]],
    ['absolute file', [[{ name: `${canary}/${marker}-abs` }, 'x']]],
    ['absolute /tmp', [[{ name: `/tmp/${marker}-tmp` }, 'x']]],
    [
      'symlink then write through it',
      [
        [{ name: 'escape', type: 'symlink', linkname: canary }],
        [{ name: `escape/${marker}-via-symlink` }, 'x'],
      ],
    ],
    [
      'relative symlink climbing then write',
      [
        [{ name: 'up', type: 'symlink', linkname: `${up}${canary.slice(1)}` }],
        [{ name: `up/${marker}-via-relative-symlink` }, 'x'],
      ],
    ],
    [
      'symlink dir replaced by a file write',
      [[{ name: 'd', type: 'symlink', linkname: '/tmp' }], [{ name: `d/${marker}-via-tmp-symlink` }, 'x']],
    ],
    ['hard link to a host file', [[{ name: 'passwd-link', type: 'link', linkname: '/etc/passwd' }]]],
    ['hard link climbing', [[{ name: 'shadow-link', type: 'link', linkname: `${up}etc/shadow` }]]],
    [
      'hard link through a symlink',
      [
        [{ name: 'etc-link', type: 'symlink', linkname: '/etc' }],
        [{ name: 'hosts-link', type: 'link', linkname: 'etc-link/hosts' }],
      ],
    ],
    [
      'device files',
      [
        [{ name: 'kmem', type: 'character-device', devmajor: 1, devminor: 2, mode: 0o666 }],
        [{ name: 'sda', type: 'block-device', devmajor: 8, devminor: 0, mode: 0o666 }],
        [{ name: 'pipe', type: 'fifo', mode: 0o666 }],
      ],
    ],
    ['empty name', [[{ name: '' }, 'x']]],
    ['dot name', [[{ name: '.' }, 'x']]],
    ['nul in name', [[{ name: `a\u0000/${up}${marker}` }, 'x']]],
    ['setuid root file', [[{ name: 'suid', mode: 0o4777, uid: 0 }, 'x']]],
    ['huge uid and mtime', [[{ name: 'odd', uid: 2 ** 40, gid: 2 ** 40, mtime: new Date(8.64e15) }, 'x']]],
  ];
}

/** A plain tar of `entries`, and the same tar cut off in the middle of an entry. */
export async function hostileTars(canary: string, marker: string): Promise<HostileArchive[]> {
  const out: HostileArchive[] = [];
  for (const [name, entries] of escapeEntries(canary, marker)) {
    let body: Buffer;
    try {
      body = await tarOf(entries);
    } catch {
      continue; // our own writer refuses it (an empty or NUL name): nothing to send
    }
    out.push({ name, body });
  }
  const whole = await tarOf([[{ name: 'big' }, randomBytes(5000)]]);
  out.push({ name: 'truncated tar', body: whole.subarray(0, 1500) });
  out.push({ name: 'garbage', body: randomBytes(3000) });
  out.push({ name: 'empty body', body: Buffer.alloc(0) });
  const header = Buffer.from(whole.subarray(0, 512));
  header.write('99999999999\0', 124, 'latin1'); // a size far beyond the body
  out.push({ name: 'lying size', body: Buffer.concat([header, Buffer.alloc(1024)]) });
  return out;
}

/**
 * A gzip of a tar holding one file of `expandedBytes` zeros (plus `extra` entries first): a
 * few hundred KiB on the wire per GiB on disk. Streamed through zlib, never whole in memory.
 */
export async function gzipBomb(expandedBytes: number, extra: Entries = []): Promise<Buffer> {
  const writer = new TarWriter();
  const out = buffer(writer.stream.pipe(createGzip({ level: 9 })));
  for (const [header, body] of extra) await writer.add(header, body);
  const chunk = Buffer.alloc(1 << 20);
  async function* zeros() {
    for (let left = expandedBytes; left > 0; left -= chunk.length) {
      yield left >= chunk.length ? chunk : chunk.subarray(0, left);
    }
  }
  await writer.add({ name: 'zeros', size: expandedBytes }, zeros());
  await writer.finish();
  return out;
}

/** gzip of gzip of ... `levels` deep around a small payload: decompressed only once, it is junk. */
export async function nestedGzip(payload: Buffer, levels: number): Promise<Buffer> {
  let body = payload;
  for (let i = 0; i < levels; i++) body = await buffer(Readable.from([body]).pipe(createGzip()));
  return body;
}
