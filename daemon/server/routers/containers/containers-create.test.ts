import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { busyboxRootfsTar, importBusybox } from '../../../testing/busybox-image';
import { create, expectStatus, inspect, run, useEngine } from '../../../testing/containers-fixture';

describe('container create', () => {
  const suite = useEngine();

  /** Runs a command to its end and returns its exit code. */
  async function exitCodeOf(body: Record<string, unknown>): Promise<number> {
    const id = await run(suite().svcd, body);
    const res = await suite().svcd.request('POST', `/containers/${id}/wait`);
    return res.json<{ StatusCode: number }>().StatusCode;
  }

  test('201 with Id and Warnings; inspect shows the merged config', async () => {
    const { svcd } = suite();
    const res = expectStatus(
      await svcd.request('POST', '/containers/create?name=web', {
        body: { Image: 'busybox', Env: ['A=1'], Labels: { x: 'y' } },
      }),
      201,
    );
    const { Id, Warnings } = res.json<{ Id: string; Warnings: string[] }>();
    assert.match(Id, /^[0-9a-f]{64}$/);
    assert.deepEqual(Warnings, []);
    const info = await inspect(svcd, Id.slice(0, 12));
    assert.equal(info.Name, '/web');
    assert.equal(info.Image, suite().imageId);
    assert.equal(info.Path, 'sh');
    assert.deepEqual(info.Config.Cmd, ['sh']);
    assert.ok(info.Config.Env?.includes('A=1'));
    assert.ok(info.Config.Env?.some((e) => e.startsWith('PATH=')));
    assert.equal(info.Config.Hostname, Id.slice(0, 12));
    assert.equal(info.HostConfig.ShmSize, 64 * 1024 * 1024);
    assert.equal(info.State.StartedAt, '0001-01-01T00:00:00Z');
    assert.match(info.Created, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/);
    expectStatus(await svcd.request('GET', '/containers/web/json'), 200);
    expectStatus(await svcd.request('GET', '/containers//web/json'), 404);
  });

  test('an image a container uses is not removed without force, by its only name or by ID', async () => {
    const { svcd } = suite();
    const imageId = await importBusybox(svcd, 'solo:1');
    await create(svcd, { Image: 'solo:1' });
    const byName = expectStatus(await svcd.request('DELETE', '/images/solo:1'), 409);
    assert.match(
      byName.json<{ message: string }>().message,
      /unable to remove repository reference "solo:1" \(must force\) - container [0-9a-f]{12} is using its referenced image/,
    );
    expectStatus(await svcd.request('DELETE', `/images/${imageId}`), 409);
    const forced = expectStatus(await svcd.request('DELETE', '/images/solo:1?force=1'), 200);
    assert.deepEqual(forced.json(), [{ Untagged: 'solo:1' }]);
    expectStatus(await svcd.request('GET', `/images/${imageId}/json`), 200);
  });

  test('errors: bad name 400, taken name 409, no image 404, bad hostname and healthcheck 400', async () => {
    const { svcd } = suite();
    const post = (query: string, body: Record<string, unknown>) =>
      svcd.request('POST', `/containers/create${query}`, { body: { Image: 'busybox', ...body } });
    expectStatus(await post('?name=bad%20name', {}), 400);
    expectStatus(await post('?name=taken', {}), 201);
    const conflict = expectStatus(await post('?name=/taken', {}), 409);
    assert.match(conflict.json<{ message: string }>().message, /already in use/);
    const missing = expectStatus(await post('', { Image: 'nosuchimage:1' }), 404);
    assert.match(missing.json<{ message: string }>().message, /No such image/);
    expectStatus(await post('', { Hostname: 'bad_host!' }), 400);
    expectStatus(await post('', { Healthcheck: { Test: ['CMD', 'true'], Interval: 1000 } }), 400);
    expectStatus(await post('', { HostConfig: { Memory: 1024 } }), 400);
    expectStatus(await post('', { HostConfig: { NetworkMode: 'nosuchnet' } }), 404);
    expectStatus(
      await post('', { HostConfig: { RestartPolicy: { Name: 'always' }, AutoRemove: true } }),
      400,
    );
  });

  test('hostile bodies: deep nesting and wrong field types are 400s naming the problem', async () => {
    const { svcd } = suite();
    const deep = `{"Image":"busybox","Labels":${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
    const nested = await svcd.request('POST', '/containers/create', {
      body: Buffer.from(deep),
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(nested.status, 400, nested.text());
    assert.match(nested.text(), /nests deeper than 64 levels/);
    const wrong = async (body: Record<string, unknown>, message: RegExp) => {
      const res = await svcd.request('POST', '/containers/create', {
        body: { Image: 'busybox', Cmd: ['true'], ...body },
      });
      assert.equal(res.status, 400, res.text());
      assert.match(res.json<{ message: string }>().message, message);
    };
    await wrong({ HostConfig: { Memory: 'lots' } }, /^HostConfig\.Memory must be a number, not "lots"$/);
    await wrong({ Cmd: 5 }, /Cmd must be a string or an array of strings, not 5/);
    await wrong({ Labels: { a: 1 } }, /Labels must be an object of strings/);
    await wrong({ HostConfig: { Binds: '/tmp:/tmp' } }, /HostConfig\.Binds must be an array of strings/);
    const filters = await svcd.request('GET', `/containers/json?filters=${'['.repeat(5000)}`);
    assert.equal(filters.status, 400);
    assert.match(filters.text(), /nests deeper/);
    const id = await create(svcd, { Image: 'busybox', Cmd: ['true'] });
    const update = await svcd.request('POST', `/containers/${id}/update`, { body: { Memory: '1g' } });
    assert.equal(update.status, 400);
    assert.match(update.json<{ message: string }>().message, /Memory must be a number/);
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
  });

  test('no command: 400 from 1.24, created before', async () => {
    const { svcd } = suite();
    const query = new URLSearchParams({ fromSrc: '-', repo: 'nocmd', tag: 'latest' });
    expectStatus(
      await svcd.request('POST', `/images/create?${query}`, {
        body: await busyboxRootfsTar(),
        headers: { 'Content-Type': 'application/x-tar' },
      }),
      200,
    );
    const res = expectStatus(
      await svcd.request('POST', '/containers/create', { body: { Image: 'nocmd' } }),
      400,
    );
    assert.match(res.json<{ message: string }>().message, /No command specified/);
  });

  test('warnings for limits the kernel cannot enforce', async () => {
    const res = expectStatus(
      await suite().svcd.request('POST', '/containers/create', {
        body: { Image: 'busybox', HostConfig: { KernelMemory: 8 * 1024 * 1024 } },
      }),
      201,
    );
    assert.ok(res.json<{ Warnings: string[] }>().Warnings.some((w) => /kernel memory/i.test(w)));
  });

  test("/etc/hosts, /etc/resolv.conf and /etc/hostname are the container's own", async () => {
    const { svcd } = suite();
    const id = await run(svcd, {
      Hostname: 'box',
      Cmd: [
        'sh',
        '-c',
        'test "$(hostname)" = box && grep -q box /etc/hosts && grep -q "^10.1.1.1.extra$" /etc/hosts && grep -q nameserver /etc/resolv.conf && test "$(cat /etc/hostname)" = box',
      ],
      HostConfig: { ExtraHosts: ['extra:10.1.1.1'] },
    });
    assert.equal(
      (await svcd.request('POST', `/containers/${id}/wait`)).json<{ StatusCode: number }>().StatusCode,
      0,
    );
    const info = await inspect(svcd, id);
    assert.ok(existsSync(info.HostsPath) && existsSync(info.ResolvConfPath) && existsSync(info.HostnamePath));
  });

  test('network modes: default joins the bridge (eth0), none has loopback only, host shares the host namespace', async () => {
    assert.equal(
      await exitCodeOf({ Cmd: ['sh', '-c', 'test "$(ls /sys/class/net | tr "\\n" " ")" = "eth0 lo "'] }),
      0,
    );
    const bridged = await inspect(suite().svcd, await run(suite().svcd, { Cmd: ['sleep', '30'] }));
    assert.match(bridged.NetworkSettings.IPAddress, /^\d+\.\d+\.\d+\.\d+$/);
    assert.deepEqual(Object.keys(bridged.NetworkSettings.Networks), ['bridge']);
    assert.equal(
      await exitCodeOf({
        Cmd: ['sh', '-c', 'test "$(ls /sys/class/net)" = lo'],
        HostConfig: { NetworkMode: 'none' },
      }),
      0,
    );
    // The host's own namespace, by identity: its interfaces come and go with other suites.
    const hostNet = readlinkSync('/proc/self/ns/net');
    assert.equal(
      await exitCodeOf({
        Cmd: ['sh', '-c', `test "$(readlink /proc/self/ns/net)" = '${hostNet}'`],
        HostConfig: { NetworkMode: 'host' },
      }),
      0,
    );
    const info = await inspect(
      suite().svcd,
      await create(suite().svcd, { HostConfig: { NetworkMode: 'none' } }),
    );
    assert.deepEqual(Object.keys(info.NetworkSettings.Networks), ['none']);
    assert.equal(info.NetworkSettings.IPAddress, '');
  });

  test('Binds (rw and ro), Tmpfs, anonymous and named volumes', async (t) => {
    const { svcd } = suite();
    const dir = mkdtempSync(join(tmpdir(), 'svc-bind-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'in.txt'), 'hello');
    const id = await run(svcd, {
      Cmd: [
        'sh',
        '-c',
        'cat /in/in.txt > /out/copy.txt && ! touch /ro/x 2>/dev/null && mount | grep -q "/scratch type tmpfs" && echo hello > /anon/a && touch /named/n',
      ],
      Volumes: { '/anon': {} },
      HostConfig: {
        Binds: [`${dir}:/in:ro`, `${dir}:/out`, `${dir}:/ro:ro`, 'myvol:/named'],
        Tmpfs: { '/scratch': 'size=1m' },
      },
    });
    assert.equal(
      (await svcd.request('POST', `/containers/${id}/wait`)).json<{ StatusCode: number }>().StatusCode,
      0,
    );
    assert.ok(existsSync(join(dir, 'copy.txt')));
    const mounts = (await inspect(svcd, id)).Mounts;
    const byDest = Object.fromEntries(mounts.map((m) => [m.Destination, m]));
    assert.equal(byDest['/in'].RW, false);
    assert.equal(byDest['/out'].Type, 'bind');
    assert.equal(byDest['/named'].Name, 'myvol');
    assert.equal(byDest['/anon'].Type, 'volume');
    assert.ok(existsSync(join(byDest['/anon'].Source, 'a')));

    // /system/df counts both volumes, their data and who mounts them.
    type DfVolume = { Name: string; Driver: string; UsageData: { Size: number; RefCount: number } };
    const df = expectStatus(await svcd.request('GET', '/system/df'), 200).json<{ Volumes: DfVolume[] }>();
    const named = df.Volumes.find((v) => v.Name === 'myvol');
    const anon = df.Volumes.find((v) => v.Name === byDest['/anon'].Name);
    assert.deepEqual(named?.UsageData, { Size: 0, RefCount: 1 });
    assert.equal(anon?.Driver, 'local');
    assert.deepEqual(anon?.UsageData, { Size: 6, RefCount: 1 });
  });

  test('a failure halfway leaves nothing behind', async () => {
    const { svcd } = suite();
    const before = (await svcd.request('GET', '/containers/json?all=1')).json<unknown[]>().length;
    const dirs = readdirSync(join(svcd.dataRoot, 'containers')).length;
    // As dockerd's, a create makes the working directory, in the root filesystem it mounts for it.
    const refused = expectStatus(
      await svcd.request('POST', '/containers/create?name=halfway', {
        body: { Image: 'busybox', WorkingDir: '/etc/passwd', Volumes: { '/v': {} } },
      }),
      500,
    );
    assert.equal(refused.json<{ message: string }>().message, 'Cannot mkdir: /etc/passwd is not a directory');
    assert.equal((await svcd.request('GET', '/containers/json?all=1')).json<unknown[]>().length, before);
    assert.equal(readdirSync(join(svcd.dataRoot, 'containers')).length, dirs);
    expectStatus(
      await svcd.request('POST', '/containers/create?name=halfway', { body: { Image: 'busybox' } }),
      201,
    );
  });

  test('User, WorkingDir, Env and Init reach the process', async () => {
    assert.equal(
      await exitCodeOf({
        User: 'svc',
        WorkingDir: '/work/dir',
        Env: ['X=y'],
        Cmd: ['sh', '-c', 'test "$(id -u)" = 1000 && test "$PWD" = /work/dir && test "$X" = y'],
      }),
      0,
    );
    assert.equal(
      await exitCodeOf({ Cmd: ['sh', '-c', 'test "$(cat /proc/1/comm)" != sh'], HostConfig: { Init: true } }),
      0,
    );
  });
});
