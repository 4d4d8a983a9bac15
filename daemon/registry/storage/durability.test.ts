// Power loss cannot be staged here, so this watches the order of the registry's own system calls
// (strace on the running process): the bytes of a blob and of a manifest are fsynced before the
// rename that gives them their name, the directory after it, and only then are they linked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { sha256 } from '../../lib/digest';
import { pushBlob, putManifest, pushSmallImage } from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { paths } from './paths';

const hasStrace = spawnSync('strace', ['-V']).status === 0;

let reg: RegistryProcess;
let scratch: string;
before(async () => {
  reg = await startRegistry();
  scratch = await mkdtemp(join(tmpdir(), 'registry-durability-'));
});
after(async () => {
  await reg.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface Call {
  name: string;
  /** The paths it names: strace -y shows a descriptor's path beside it. */
  paths: string[];
}

/** Attaches strace to every thread of the registry; resolves once it is attached. */
async function traceRegistry(file: string): Promise<ChildProcess> {
  const args = ['-f', '-y', '-e', 'trace=fsync,fdatasync,rename,renameat,renameat2'];
  const strace = spawn('strace', [...args, '-o', file, '-p', String(reg.child.pid)], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let said = '';
    strace.stderr!.on('data', (d: Buffer) => {
      said += d.toString();
      if (/attached/.test(said)) resolve();
    });
    strace.once('exit', (code) => reject(new Error(`strace exited ${code}: ${said}`)));
  });
  return strace;
}

function parse(trace: string): Call[] {
  const calls: Call[] = [];
  for (const line of trace.split('\n')) {
    const m = /^\d+\s+(?:<\.\.\. )?(fsync|fdatasync|rename|renameat2?)\b(.*)$/.exec(line);
    if (!m || /unfinished|= -1/.test(m[2])) continue;
    const named = [...m[2].matchAll(/<([^<>]+)>|"([^"]+)"/g)].map((x) => x[1] ?? x[2]);
    calls.push({ name: m[1], paths: named });
  }
  return calls;
}

test(
  'blob and manifest bytes are fsynced before their rename, their directory after, then linked',
  {
    skip: !hasStrace && 'strace is not installed',
  },
  async () => {
    const file = join(scratch, 'trace');
    const strace = await traceRegistry(file);
    const layer = randomBytes(256 * 1024);
    const layerDigest = await pushBlob(reg.url, 'dur/app', layer);
    const manifest = await pushSmallImage(reg.url, 'dur/app', 'durability');
    const put = await putManifest(
      reg.url,
      'dur/app',
      'v1',
      manifest,
      'application/vnd.docker.distribution.manifest.v2+json',
    );
    assert.equal(put.status, 201);
    strace.kill('SIGINT');
    await new Promise((resolve) => strace.once('exit', resolve));
    const calls = parse(await readFile(file, 'utf8'));

    for (const [what, digest, link] of [
      ['layer', layerDigest, paths.layerLink('dur/app', layerDigest)],
      ['manifest', sha256(manifest), paths.revisionLink('dur/app', sha256(manifest))],
    ] as const) {
      const target = paths.blobData(digest);
      const rename = calls.findIndex((c) => c.name.startsWith('rename') && c.paths[1]?.endsWith(target));
      assert.ok(rename >= 0, `${what}: the rename into ${target} was seen`);
      const source = calls[rename].paths[0];
      const synced = calls.slice(0, rename).some((c) => c.name.endsWith('sync') && c.paths[0] === source);
      assert.ok(synced, `${what}: ${source} fsynced before its rename`);
      const dir = dirname(calls[rename].paths[1]);
      const dirSync = calls.findIndex((c, i) => i > rename && c.name === 'fsync' && c.paths[0] === dir);
      assert.ok(dirSync > rename, `${what}: ${dir} fsynced after the rename`);
      const linked = calls.findIndex((c) => c.name.startsWith('rename') && c.paths[1]?.endsWith(link));
      assert.ok(linked > dirSync, `${what}: linked only after its directory was synced`);
    }
  },
);
