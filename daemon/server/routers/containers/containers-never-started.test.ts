// A container that was created and not started yet: its create only recorded it (containerd's
// layer and container come with its first start or the first call on its files), and every call
// a client makes on such a container works as on dockerd.
import assert from 'node:assert/strict';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import type { ContainerChange } from '../../../api/container-summary-types';
import { readTar } from '../../../lib/tar/tar-reader';
import { create, expectStatus, inspect, useEngine } from '../../../testing/containers-fixture';
import { tarOf } from '../../../testing/tar-of';

const tarHeaders = { 'Content-Type': 'application/x-tar' };

async function tarNames(archive: Buffer): Promise<Set<string>> {
  const out = new Set<string>();
  for await (const { header, body } of readTar(Readable.from([archive]))) {
    out.add(header.name);
    body.resume();
  }
  return out;
}

describe('a container never started', () => {
  const suite = useEngine();

  test('an unknown user fails its start with dockerd’s message, and it stays created', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { User: 'nosuchuser', Cmd: ['true'] });
    const start = expectStatus(await svcd.request('POST', `/containers/${id}/start`), 400, 'start');
    const message = 'unable to find user nosuchuser: no matching entries in passwd file';
    assert.equal(start.json<{ message: string }>().message, message);
    const { State } = await inspect(svcd, id);
    assert.equal(State.Status, 'created');
    assert.equal(State.ExitCode, 128);
    assert.equal(State.Error, message);
    const group = await create(svcd, { User: 'root:nosuchgroup', Cmd: ['true'] });
    assert.equal(
      expectStatus(await svcd.request('POST', `/containers/${group}/start`), 400).json<{ message: string }>()
        .message,
      'unable to find group nosuchgroup: no matching entries in group file',
    );
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
    expectStatus(await svcd.request('DELETE', `/containers/${group}`), 204);
  });

  test('files copied in before the start, across a restart of svcd, are what it runs', async () => {
    const { svcd } = suite();
    const id = await create(
      svcd,
      { WorkingDir: '/made/at/create', Env: ['WANT=/made/at/create'], Cmd: ['sh', '/copied.sh'] },
      'copyfirst',
    );
    // As dockerd's, the create made the working directory.
    expectStatus(await svcd.request('HEAD', `/containers/${id}/archive?path=/made/at/create`), 200);
    const plain = await create(svcd, { Cmd: ['sh', '/copied.sh'] }, 'plain');
    await svcd.stop();
    await svcd.start();
    const script = await tarOf([[{ name: 'copied.sh' }, 'test "$PWD" = "${WANT:-/}" && exit 7\n']]);
    for (const target of [id, plain]) {
      expectStatus(
        await svcd.request('PUT', `/containers/${target}/archive?path=/`, {
          body: script,
          headers: tarHeaders,
        }),
        200,
        'archive PUT',
      );
    }
    const changes = expectStatus(await svcd.request('GET', `/containers/${plain}/changes`), 200).json<
      ContainerChange[]
    >();
    assert.deepEqual(changes, [{ Path: '/copied.sh', Kind: 1 }]);
    const exported = await tarNames(
      expectStatus(await svcd.request('GET', `/containers/${plain}/export`), 200).body,
    );
    assert.ok(exported.has('copied.sh') && exported.has('bin/busybox'));
    // Renamed and limited before its first start: the start runs with both.
    expectStatus(await svcd.request('POST', `/containers/${plain}/rename?name=renamed`), 204);
    expectStatus(
      await svcd.request('POST', `/containers/renamed/update`, { body: { Memory: 64 * 1024 * 1024 } }),
      200,
    );
    for (const target of [id, 'renamed']) {
      expectStatus(await svcd.request('POST', `/containers/${target}/start`), 204, 'start');
    }
    const code = async (target: string) =>
      (await svcd.request('POST', `/containers/${target}/wait`)).json<{ StatusCode: number }>().StatusCode;
    // Each ran in its working directory (the script tests it against WANT).
    assert.equal(await code('renamed'), 7);
    assert.equal(await code(id), 7);
    assert.equal((await inspect(svcd, 'renamed')).HostConfig.Memory, 64 * 1024 * 1024);
    for (const target of [id, 'renamed'])
      expectStatus(await svcd.request('DELETE', `/containers/${target}`), 204);
  });

  test('a list shows it with nothing written, a commit takes its layer', async () => {
    const { svcd } = suite();
    const id = await create(svcd, { Cmd: ['true'] }, 'justmade');
    const listed = (await svcd.request('GET', '/containers/json?all=1&size=1')).json<
      Array<{ Id: string; State: string; SizeRw?: number }>
    >();
    // SizeRw is left out when 0, as dockerd's.
    assert.deepEqual(
      listed.filter((c) => c.Id === id).map((c) => [c.State, c.SizeRw ?? 0]),
      [['created', 0]],
    );
    const image = expectStatus(
      await svcd.request('POST', `/commit?container=${id}&repo=fromfresh`),
      201,
    ).json<{
      Id: string;
    }>().Id;
    assert.match(image, /^sha256:/);
    const fresh = await create(svcd, { Cmd: ['true'] }, 'unused');
    for (const target of [id, fresh])
      expectStatus(await svcd.request('DELETE', `/containers/${target}`), 204);
    expectStatus(await svcd.request('DELETE', '/images/fromfresh'), 200);
  });
});
