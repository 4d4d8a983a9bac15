// host-calls.node: each call does what its system call does, and fails as it does.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { call, hostCalls, HostCallError, MS_BIND, MS_RDONLY } from './host-calls';

const mounted = (target: string) =>
  readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .some((l) => l.split(' ')[4] === target);

test('mount, umount and mkfifo from the process, errors named by their errno', async () => {
  const native = hostCalls();
  assert.ok(native, 'build/native/host-calls.node loads');
  const dir = await mkdtemp(join(tmpdir(), 'host-calls-'));
  try {
    const target = join(dir, 'target');
    const source = join(dir, 'source');
    // A bind mount, then a tmpfs with a flag and options of its own, each unmounted.
    await mkdir(source);
    await mkdir(target);
    await writeFile(join(source, 'f'), 'hello');
    await call((done) => native.mount(source, target, null, MS_BIND, null, done));
    assert.ok(mounted(target));
    assert.equal(await readFile(join(target, 'f'), 'utf8'), 'hello');
    await call((done) => native.umount(target, 0, done));
    assert.equal(mounted(target), false);
    await call((done) => native.mount('tmpfs', target, 'tmpfs', MS_RDONLY, 'size=1m,mode=0700', done));
    const line = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .find((l) => l.split(' ')[4] === target);
    assert.match(line ?? '', / ro[, ]/);
    assert.match(line ?? '', /size=1024k/);
    await call((done) => native.umount(target, 0, done));

    const fifos = [join(dir, 'a'), join(dir, 'b')];
    await call((done) => native.mkfifo(fifos, 0o600, done));
    for (const f of fifos) {
      const s = await stat(f);
      assert.ok(s.isFIFO());
      assert.equal(s.mode & 0o777, 0o600);
    }
    const exists = await call((done) => native.mkfifo([fifos[0]], 0o600, done)).catch((e: unknown) => e);
    assert.ok(exists instanceof HostCallError);
    assert.equal(exists.code, 'EEXIST');
    assert.ok(exists.message.endsWith(fifos[0]), exists.message);
    const notMounted = await call((done) => native.umount(target, 0, done)).catch((e: unknown) => e);
    assert.ok(notMounted instanceof HostCallError);
    assert.equal(notMounted.code, 'EINVAL');
    assert.throws(() => native.umount(undefined as unknown as string, 0, () => undefined), TypeError);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
