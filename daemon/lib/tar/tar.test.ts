import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, mkdir, rm, symlink, writeFile, readFile } from 'node:fs/promises';
import { createReadStream } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { createGzip } from 'node:zlib';
import { readTar } from './tar-reader';
import { TarWriter } from './tar-writer';
import type { TarHeader, TarHeaderInput } from './tar-header';
import { confineName, resolveInRoot } from './confine-path';
import { decompress, detectCompression } from './decompress';

async function collect(source: AsyncIterable<Buffer>) {
  const out: { header: TarHeader; data: Buffer }[] = [];
  for await (const entry of readTar(source))
    out.push({ header: entry.header, data: await buffer(entry.body) });
  return out;
}

async function archive(entries: [TarHeaderInput, (Buffer | string)?][]): Promise<Buffer> {
  const writer = new TarWriter();
  const result = buffer(writer.stream);
  for (const [header, body] of entries) await writer.add(header, body);
  await writer.finish();
  return result;
}

let dir: string;
before(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'tar-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('tar round trip', () => {
  const longDir = 'd'.repeat(120) + '/' + 'e'.repeat(120);
  const longName = `${longDir}/${'f'.repeat(150)}.txt`;
  const entries: [TarHeaderInput, string?][] = [
    [{ name: 'etc', type: 'directory', mode: 0o755 }],
    [
      { name: 'etc/hostname', mode: 0o644, uid: 1000, gid: 1000, mtime: new Date(1_700_000_000_000) },
      'box\n',
    ],
    [{ name: 'bin/sh', type: 'symlink', linkname: '/bin/busybox' }],
    [{ name: 'etc/hardlink', type: 'link', linkname: 'etc/hostname' }],
    [{ name: 'dev/null', type: 'character-device', mode: 0o666, devmajor: 1, devminor: 3 }],
    [{ name: 'dev/sda', type: 'block-device', mode: 0o660, devmajor: 8, devminor: 0 }],
    [{ name: 'run/fifo', type: 'fifo', mode: 0o600 }],
    [{ name: 'usr/.wh.removed', mode: 0 }],
    [{ name: 'usr/share/.wh..wh..opq', mode: 0 }],
    [{ name: longName, uid: 3_000_000, mtime: new Date(1_700_000_000_123) }, 'long'],
    [{ name: 'lnk', type: 'symlink', linkname: `/${longName}` }],
    [{ name: 'xattr', pax: { 'SCHILY.xattr.user.test': 'value' }, uname: 'u'.repeat(40) }, ''],
    [{ name: 'ünïcode-名前' }, 'utf8'],
  ];

  test('our writer, our reader: every field comes back', async () => {
    const got = await collect(Readable.from([await archive(entries)]));
    assert.equal(got.length, entries.length);
    for (const [i, [input, body]] of entries.entries()) {
      const { header, data } = got[i];
      assert.equal(header.name, input.name);
      assert.equal(header.type, input.type ?? 'file');
      assert.equal(data.toString(), body ?? '');
      for (const key of ['mode', 'uid', 'gid', 'linkname', 'devmajor', 'devminor', 'uname'] as const) {
        if (input[key] !== undefined) assert.equal(header[key], input[key], `${input.name} ${key}`);
      }
      if (input.mtime) assert.equal(header.mtime.getTime(), input.mtime.getTime());
    }
    assert.equal(got[11].header.pax['SCHILY.xattr.user.test'], 'value');
  });

  test('GNU tar lists what we write', async () => {
    const file = path.join(dir, 'ours.tar');
    await writeFile(file, await archive(entries));
    const listing = execFileSync('tar', ['-tvf', file], { encoding: 'utf8' });
    assert.match(listing, new RegExp(`${'f'.repeat(150)}\\.txt`));
    assert.match(listing, /bin\/sh -> \/bin\/busybox/);
    assert.match(listing, /etc\/hardlink link to etc\/hostname/);
    assert.match(listing, /^c.* 1,\s*3 .*dev\/null$/m);
    assert.match(listing, /^p.*run\/fifo$/m);
  });

  for (const format of ['gnu', 'posix', 'ustar']) {
    test(`we read GNU tar's ${format} format`, async () => {
      const src = path.join(dir, `src-${format}`);
      const deep = format === 'ustar' ? 'a/b' : `${'x'.repeat(90)}/${'y'.repeat(90)}/${'z'.repeat(90)}`;
      await mkdir(path.join(src, deep), { recursive: true });
      await writeFile(path.join(src, deep, 'file'), 'content');
      await symlink(format === 'ustar' ? 'file' : `${'t'.repeat(150)}`, path.join(src, deep, 'link'));
      const file = path.join(dir, `${format}.tar`);
      execFileSync('tar', [`--format=${format}`, '-cf', file, '-C', src, '.']);
      const got = await collect(createReadStream(file));
      const entry = got.find((e) => e.header.name === `./${deep}/file`);
      assert.ok(entry, `entries: ${got.map((e) => e.header.name).join(', ')}`);
      assert.equal(entry.data.toString(), 'content');
      const link = got.find((e) => e.header.name === `./${deep}/link`);
      assert.equal(link?.header.type, 'symlink');
      assert.equal(link?.header.linkname, format === 'ustar' ? 'file' : 't'.repeat(150));
    });
  }

  test('large bodies stream through in pieces, entries left unread are skipped', async () => {
    const big = Buffer.alloc(5 * 1024 * 1024 + 7, 0x61);
    const writer = new TarWriter();
    const writing = (async () => {
      await writer.add(
        { name: 'big', size: big.length },
        Readable.from([big.subarray(0, 1000), big.subarray(1000)]),
      );
      await writer.add({ name: 'skipped', size: 3 }, 'abc');
      await writer.add({ name: 'after' }, 'tail');
      await writer.finish();
    })();
    const names: string[] = [];
    let bigChunks = 0;
    for await (const entry of readTar(writer.stream)) {
      names.push(entry.header.name);
      if (entry.header.name === 'big') {
        let size = 0;
        for await (const chunk of entry.body) {
          size += chunk.length;
          bigChunks++;
        }
        assert.equal(size, big.length);
      }
      if (entry.header.name === 'after') assert.equal((await buffer(entry.body)).toString(), 'tail');
    }
    await writing;
    assert.deepEqual(names, ['big', 'skipped', 'after']);
    assert.ok(bigChunks > 10, 'the body arrived in many chunks, not as one buffer');
  });

  test('a body of the wrong size fails the archive', async () => {
    const writer = new TarWriter();
    writer.stream.resume();
    writer.stream.on('error', () => {});
    await assert.rejects(writer.add({ name: 'x', size: 10 }, 'short'), /not 10 bytes long/);
  });

  test('a truncated archive is an error', async () => {
    const data = await archive([[{ name: 'f' }, 'x'.repeat(2000)]]);
    await assert.rejects(collect(Readable.from([data.subarray(0, 1200)])), /unexpected end of tar archive/);
  });

  test('a corrupted header is an error', async () => {
    const data = await archive([[{ name: 'f' }, 'x']]);
    data[10] ^= 0xff;
    await assert.rejects(collect(Readable.from([data])), /checksum/);
  });
});

describe('path confinement', () => {
  let root: string;
  before(async () => {
    root = path.join(dir, 'root');
    await mkdir(path.join(root, 'etc'), { recursive: true });
    await symlink('/etc', path.join(root, 'abs'));
    await symlink('../../../../..', path.join(root, 'up'));
    await symlink('loop2', path.join(root, 'loop1'));
    await symlink('loop1', path.join(root, 'loop2'));
    await symlink('etc', path.join(root, 'rel'));
  });

  const rejected = ['..', '../x', 'a/../../x', '/../etc/passwd', './../x'];
  for (const name of rejected) {
    test(`${name} is rejected`, async () => {
      assert.throws(() => confineName(name), /escapes the root/);
      await assert.rejects(resolveInRoot(root, name), /escapes the root/);
    });
  }

  const cases: [string, string][] = [
    ['/etc/passwd', 'etc/passwd'],
    ['a/b/../c', 'a/c'],
    ['abs/passwd', 'etc/passwd'],
    ['up/x', 'x'],
    ['up/up/abs/shadow', 'etc/shadow'],
    ['rel/hosts', 'etc/hosts'],
    ['abs', 'abs'],
  ];
  for (const [name, expected] of cases) {
    test(`${name} resolves to <root>/${expected}`, async () => {
      assert.equal(await resolveInRoot(root, name), path.join(root, expected));
    });
  }

  test('a final symlink is followed inside the root when asked', async () => {
    assert.equal(await resolveInRoot(root, 'up', { followFinal: true }), root);
    assert.equal(await resolveInRoot(root, 'abs', { followFinal: true }), path.join(root, 'etc'));
  });

  test('symlink loops are an error', async () => {
    await assert.rejects(resolveInRoot(root, 'loop1/x'), /too many levels of symbolic links/);
  });
});

describe('decompression', () => {
  const payload = Buffer.from('hello compressed world\n'.repeat(1000));
  for (const [program, kind] of [
    ['gzip', 'gzip'],
    ['bzip2', 'bzip2'],
    ['xz', 'xz'],
    ['zstd', 'zstd'],
  ] as const) {
    test(`${kind} is detected and decompressed`, async () => {
      const compressed = execFileSync(program, ['-c'], { input: payload });
      assert.equal(detectCompression(compressed), kind);
      const { compression, stream } = await decompress(
        Readable.from([compressed.subarray(0, 3), compressed.subarray(3)]),
      );
      assert.equal(compression, kind);
      assert.deepEqual(await buffer(stream), payload);
    });
  }

  test('plain data passes through unchanged', async () => {
    const { compression, stream } = await decompress(Readable.from([payload]));
    assert.equal(compression, 'none');
    assert.deepEqual(await buffer(stream), payload);
  });

  test('a gzipped tar reads through decompress', async () => {
    const data = await archive([[{ name: 'a' }, 'A']]);
    const { stream } = await decompress(Readable.from([data]).pipe(createGzip()));
    const got = await collect(stream);
    assert.equal(got[0].data.toString(), 'A');
  });

  test('corrupt xz data is a clear error', async () => {
    const bad = Buffer.concat([Buffer.from([0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00]), Buffer.alloc(100, 1)]);
    const { stream } = await decompress(Readable.from([bad]));
    await assert.rejects(buffer(stream), /xz:/);
  });

  test('a file extracted under the root stays there', async () => {
    const target = await resolveInRoot(path.join(dir, 'root'), 'abs/new-file');
    await writeFile(target, 'inside');
    assert.equal(await readFile(path.join(dir, 'root', 'etc', 'new-file'), 'utf8'), 'inside');
  });
});

test('binary xattr values in pax records keep their bytes', async () => {
  // Not UTF-8: as security.capability values are. Each byte is one latin1 character.
  const value = Buffer.from([0x01, 0x00, 0x00, 0x02, 0xff, 0x80, 0xc3, 0x28]);
  const bytes = await archive([
    [{ name: 'cap', pax: { 'SCHILY.xattr.security.capability': value.toString('latin1') } }, 'x'],
  ]);
  assert.ok(bytes.includes(Buffer.concat([Buffer.from('security.capability='), value, Buffer.from('\n')])));
  const [entry] = await collect(Readable.from([bytes]));
  assert.deepEqual(Buffer.from(entry.header.pax['SCHILY.xattr.security.capability'], 'latin1'), value);
});
