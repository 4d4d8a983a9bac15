// What other engine code asks of images, against a real containerd: resolveForContainer (the
// snapshot to start from, an empty one for an image without layers) and findImage.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { startTestContainerd, type TestContainerd } from '../../runtime/containerd/test-fixtures';
import { EventsService } from '../events/events-service';
import { ContainerRegistry } from '../containers/container-registry';
import { containerUsageOf } from '../containers/container-usage';
import { ContainerRootfs } from '../containers/container-rootfs';
import { ImageService } from './image-service';
import { createImage } from './image-import';
import { withLease } from './lease';
import { busyboxRootfsTar } from '../../testing/busybox-image';
import { EMPTY_CHAIN, chainIds } from './unpacker';
import { applyChanges } from './image-changes';

let ctd: TestContainerd;
let service: ImageService;
let tempDir: string;

before(async () => {
  ctd = await startTestContainerd();
  tempDir = await mkdtemp(path.join(tmpdir(), 'image-service-'));
  service = new ImageService({
    client: ctd.client,
    events: new EventsService(),
    tempDir,
    insecureRegistries: [],
    userAgent: 'test',
    containers: containerUsageOf(new ContainerRegistry(), new ContainerRootfs(ctd.client)),
  });
});

after(async () => {
  await ctd?.cleanup();
  await rm(tempDir, { recursive: true, force: true });
});

test('resolveForContainer gives the config and the committed snapshot of the top layer', async () => {
  const id = await service.importImage({
    body: Readable.from([await busyboxRootfsTar()]),
    fromSrc: '-',
    repo: 'busybox',
    changes: ['CMD ["sh"]'],
    emit: () => {},
  });
  const resolved = await service.resolveForContainer('busybox');
  assert.equal(resolved.id, id);
  assert.equal(resolved.name, 'docker.io/library/busybox:latest');
  assert.deepEqual(resolved.config.config?.Cmd, ['sh']);
  assert.equal(resolved.chainId, chainIds(resolved.config.rootfs.diff_ids).at(-1));
  await resolved.unpack();
  const snapshot = await ctd.client.snapshots.stat(resolved.chainId);
  assert.equal(snapshot.kind, 'COMMITTED');
  assert.ok((await ctd.client.snapshots.usage(resolved.chainId)).size > 1_000_000);
  assert.equal((await service.resolveForContainer(id.slice(7, 19))).name, id);
  await assert.rejects(service.resolveForContainer('nosuch'), /No such image: nosuch/);
});

test('findImage by ID, short ID, name and digest reference', async () => {
  const { id } = await service.resolveForContainer('busybox');
  for (const ref of [id, id.slice(7), id.slice(7, 15), 'busybox', 'docker.io/library/busybox:latest']) {
    assert.deepEqual(await service.findImage(ref), { id, names: ['busybox:latest'] }, ref);
  }
  assert.equal(await service.findImage('busybox:other'), undefined);
});

test('an image without layers runs on an empty committed snapshot', async () => {
  const config = {
    architecture: 'amd64',
    os: 'linux',
    config: applyChanges({}, ['CMD ["/nothing"]']),
    rootfs: { type: 'layers' as const, diff_ids: [] },
  };
  await withLease(ctd.client, (leased) =>
    createImage(service.store, leased, { layers: [], config, name: 'docker.io/library/empty:latest' }),
  );
  const resolved = await service.resolveForContainer('empty');
  assert.equal(resolved.chainId, EMPTY_CHAIN);
  await resolved.unpack();
  assert.equal((await ctd.client.snapshots.stat(EMPTY_CHAIN)).kind, 'COMMITTED');
});
