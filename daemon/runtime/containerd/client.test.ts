import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ConflictError, NotFoundError } from '../../api/errors';
import { sha256 } from '../../lib/digest';
import type { ContainerdClient } from './client';
import type { EventEnvelope } from './events-service';
import { topicFilter } from './events-service';
import { createFifos, openFifoReader } from './fifo';
import {
  layerMediaType,
  minimalSpec,
  startTestContainerd,
  unpackBusybox,
  type TestContainerd,
} from './test-fixtures';

async function readAll(stream: AsyncIterable<Buffer | string>): Promise<string> {
  let text = '';
  for await (const chunk of stream) text += chunk.toString();
  return text;
}

describe('ContainerdClient', () => {
  let ctd: TestContainerd;
  let client: ContainerdClient;
  let leaseId: string;

  before(async () => {
    ctd = await startTestContainerd();
    leaseId = (await ctd.client.leases.create({ expiresInMs: 10 * 60_000 })).id;
    client = ctd.client.withLease(leaseId);
  });
  after(async () => {
    await ctd?.cleanup();
  });

  test('content: streamed write verified by digest, info, list, streamed read, delete', async () => {
    const data = randomBytes(3 * 1024 * 1024 + 17);
    const digest = sha256(data);
    const source = Readable.from([data.subarray(0, 1000), data.subarray(1000)]);
    const written = await client.content.write('blob-1', source, { expected: digest, size: data.length });
    assert.deepEqual(written, { digest, size: data.length, existed: false });

    const info = await client.content.info(digest);
    assert.equal(info.size, data.length);
    assert.ok((await client.content.list()).some((i) => i.digest === digest));
    assert.ok(Buffer.from(await client.content.readAll(digest)).equals(data));
    const part = await client.content.readAll(digest);
    assert.equal(part.length, data.length);

    const again = await client.content.write('blob-1b', data, { expected: digest, size: data.length });
    assert.equal(again.existed, true);

    await client.content.delete(digest);
    await assert.rejects(client.content.info(digest), NotFoundError);
  });

  test('content: a write with the wrong expected digest fails and leaves nothing', async () => {
    const data = Buffer.from('not what was announced');
    const wrong = sha256('something else');
    await assert.rejects(
      client.content.write('blob-bad', data, { expected: wrong, size: data.length }),
      (err: unknown) => err instanceof ConflictError && /digest/.test(err.message),
    );
    await assert.rejects(client.content.info(wrong), NotFoundError);
    await assert.rejects(client.content.info(sha256(data)), NotFoundError);
    assert.deepEqual(
      (await client.content.listStatuses()).filter((s) => s.ref === 'blob-bad'),
      [],
    );
    await assert.rejects(client.content.status('blob-bad'), NotFoundError);
  });

  test('content: reading a missing blob fails on the stream with NotFoundError', async () => {
    await assert.rejects(readAll(client.content.read(sha256('missing'))), NotFoundError);
  });

  test('namespaces, leases and images', async () => {
    assert.ok((await client.namespaces.list()).some((n) => n.name === 'svc-test'));
    assert.equal((await client.namespaces.ensure('svc-test')).name, 'svc-test');
    assert.ok((await client.leases.list()).some((l) => l.id === leaseId));

    const blob = Buffer.from('{"schemaVersion":2}');
    const target = {
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      digest: sha256(blob),
      size: blob.length,
    };
    await client.content.write('manifest', blob, { expected: target.digest, size: target.size });
    const image = await client.images.create({ name: 'example.test/app:1', target, labels: { a: '1' } });
    assert.deepEqual(image.target.digest, target.digest);
    await assert.rejects(client.images.create({ name: 'example.test/app:1', target }), ConflictError);
    assert.deepEqual((await client.images.update('example.test/app:1', { labels: { b: '2' } })).labels, {
      b: '2',
    });
    assert.equal((await client.images.get('example.test/app:1')).target.size, blob.length);
    assert.deepEqual(
      (await client.images.list(['name==example.test/app:1'])).map((i) => i.name),
      ['example.test/app:1'],
    );
    await client.images.delete('example.test/app:1');
    await assert.rejects(client.images.get('example.test/app:1'), NotFoundError);
  });

  test('a container runs from an applied layer: stdout FIFO, exit status, events, cleanup', async (t) => {
    const parent = await unpackBusybox(client, ctd.dir);
    const layer = await client.snapshots.stat(parent);
    assert.equal(layer.kind, 'COMMITTED');
    assert.ok((await client.snapshots.usage(parent)).size > 500_000, 'the layer holds busybox');

    const id = 'hello';
    const rootfs = await client.snapshots.prepare(id, parent);
    assert.equal(rootfs[0]?.type, 'overlay');
    assert.deepEqual(await client.snapshots.mounts(id), rootfs);
    assert.equal((await client.snapshots.stat(id)).kind, 'ACTIVE');

    const spec = minimalSpec(['/bin/busybox', 'sh', '-c', 'echo hello; exit 3']);
    const created = await client.containers.create({
      id,
      spec,
      snapshotter: 'overlayfs',
      snapshotKey: id,
      labels: { 'svc.test': 'yes' },
    });
    assert.equal(created.runtime.name, 'io.containerd.runc.v2');
    assert.deepEqual((await client.containers.get(id)).spec, spec);
    assert.deepEqual(
      (await client.containers.list(['labels."svc.test"==yes'])).map((c) => c.id),
      [id],
    );
    assert.deepEqual((await client.containers.update(id, { labels: { x: 'y' } })).labels, { x: 'y' });
    await assert.rejects(client.containers.create({ id, spec }), ConflictError);

    const events = client.events.subscribe([topicFilter('/tasks/start'), topicFilter('/tasks/exit')]);
    const seen: EventEnvelope[] = [];
    const collecting = (async () => {
      for await (const env of events) {
        seen.push(env);
        if (env.topic === '/tasks/exit') break;
      }
    })();
    t.after(() => events.close());

    const stdout = path.join(ctd.dir, `${id}.stdout`);
    await createFifos([stdout]);
    const reader = openFifoReader(stdout);
    const output = readAll(reader);
    const { pid } = await client.tasks.create(id, { rootfs, stdout });
    assert.ok(pid > 0);
    assert.equal((await client.tasks.get(id)).status, 'CREATED');
    const exited = client.tasks.wait(id);
    await client.tasks.start(id);

    assert.equal((await exited).exitStatus, 3);
    assert.equal(await output, 'hello\n');
    await collecting;
    events.close();
    const exit = seen.find((e) => e.topic === '/tasks/exit');
    assert.equal(exit?.namespace, 'svc-test');
    assert.equal(exit?.event?.type, 'TaskExit');
    assert.ok(
      exit?.event?.type === 'TaskExit' && exit.event.exitStatus === 3 && exit.event.containerId === id,
    );
    assert.ok(exit?.event?.type === 'TaskExit' && exit.event.exitedAt instanceof Date);
    assert.ok(seen.some((e) => e.event?.type === 'TaskStart' && e.event.pid === pid));

    const task = await client.tasks.get(id);
    assert.equal(task.status, 'STOPPED');
    assert.equal(task.exitStatus, 3);
    assert.equal((await client.tasks.delete(id)).exitStatus, 3);
    await assert.rejects(client.tasks.get(id), NotFoundError);
    await client.containers.delete(id);
    await assert.rejects(client.containers.get(id), NotFoundError);

    // The container's writable layer, diffed against its parent, is a new blob in the store.
    const lower = await client.snapshots.view(`${id}-lower`, parent);
    const diff = await client.diff.diff(lower, rootfs, { mediaType: layerMediaType, ref: `diff-${id}` });
    assert.equal(diff.mediaType, layerMediaType);
    assert.equal((await client.content.info(diff.digest)).size, diff.size);
    await client.snapshots.remove(`${id}-lower`);
    await client.snapshots.remove(id);
    await assert.rejects(client.snapshots.stat(id), NotFoundError);
    assert.ok((await client.snapshots.list()).some((s) => s.name === parent));
  });

  test('a running task: pids, metrics, exec, pause and resume, kill', async () => {
    const parent = (await client.snapshots.list()).find((s) => s.kind === 'COMMITTED')?.name;
    assert.ok(parent);
    const id = 'runner';
    const rootfs = await client.snapshots.prepare(id, parent);
    await client.containers.create({
      id,
      spec: minimalSpec(['/bin/busybox', 'sleep', '30']),
      snapshotKey: id,
    });
    await client.tasks.create(id, { rootfs });
    const pid = await client.tasks.start(id);
    assert.deepEqual(await client.tasks.pids(id), [pid]);
    assert.ok((await client.tasks.list()).some((t) => t.id === id && t.status === 'RUNNING'));

    const [metrics] = await client.tasks.metrics([id]);
    assert.equal(metrics?.id, id);
    assert.ok((metrics?.cgroupV1?.memory?.usage?.usage ?? 0) > 0, 'memory usage reported');
    assert.equal(metrics?.cgroupV1?.pids?.current, 1);

    const out = path.join(ctd.dir, 'exec.stdout');
    await createFifos([out]);
    const output = readAll(openFifoReader(out));
    const process = {
      ...(minimalSpec([]) as { process: object }).process,
      args: ['/bin/busybox', 'hostname'],
    };
    await client.tasks.exec(id, 'e1', process, { stdout: out });
    const execDone = client.tasks.wait(id, 'e1');
    await client.tasks.start(id, 'e1');
    assert.equal((await execDone).exitStatus, 0);
    assert.equal(await output, 'svc-test\n');
    await client.tasks.deleteProcess(id, 'e1');

    await client.tasks.pause(id);
    assert.equal((await client.tasks.get(id)).status, 'PAUSED');
    await client.tasks.resume(id);
    assert.equal((await client.tasks.get(id)).status, 'RUNNING');

    const abort = new AbortController();
    const cancelled = client.tasks.wait(id, '', abort.signal);
    abort.abort();
    await assert.rejects(cancelled);

    // busybox sleep as PID 1 ignores SIGTERM (no handler), so SIGKILL it.
    const done = client.tasks.wait(id);
    await client.tasks.kill(id, 9);
    assert.equal((await done).exitStatus, 137);
    await client.tasks.delete(id);
    await client.containers.delete(id);
    await client.snapshots.remove(id);
  });
});
