// The plugins API against a real svcd: a volume-driver plugin built from volume-driver.c, made
// with POST /plugins/create, run through svcd's containerd, and used by volumes and containers.
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Plugin } from '../../../api/plugin-types';
import type { Volume } from '../../../api/volume-types';
import { expectStatus, eventually } from '../../../testing/containers-fixture';
import { importBusybox } from '../../../testing/busybox-image';
import { buildDriverPlugin, pluginTar } from '../../testing/volume-driver-plugin';
import { startRegistry, type RegistryProcess } from '../../../registry/testing/registry-process';
import { eventsSince } from '../../../testing/engine-client';
import { destroySvcd, engineEvents, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';

const name = 'svc-test/voldriver';

describe('plugins API', () => {
  let svcd: SvcdInstance;
  let pluginDir: string;
  let legacyDir: string;
  let registry: RegistryProcess;
  let legacy: ChildProcess | undefined;

  before(async () => {
    pluginDir = buildDriverPlugin();
    legacyDir = mkdtempSync(join(tmpdir(), 'svc-legacy-plugins-'));
    registry = await startRegistry();
    svcd = await startSvcd({ args: ['--plugins-dir', legacyDir, '--plugin-timeout', '3'] });
    await importBusybox(svcd);
  });
  after(async () => {
    legacy?.kill('SIGKILL');
    // The suite's plugins go first: their tasks would otherwise stop only with svcd.
    for (const p of (await svcd?.request('GET', '/plugins'))?.json<Plugin[]>() ?? []) {
      await svcd.request('DELETE', `/plugins/${p.Id}?force=1`);
    }
    await destroySvcd(svcd);
    await registry?.stop();
    rmSync(pluginDir, { recursive: true, force: true });
    rmSync(legacyDir, { recursive: true, force: true });
  });

  const req = (method: string, path: string, body?: unknown) => svcd.request(method, path, { body });
  const get = async (ref: string) =>
    expectStatus(await req('GET', `/plugins/${ref}/json`), 200).json<Plugin>();
  const dataDir = (p: Plugin) => join(svcd.dataRoot, 'plugins', p.Id, 'propagated-mount');
  const calls = (p: Plugin) => readFileSync(join(dataDir(p), 'calls.log'), 'utf8');

  test('create from a tar, list with filters, inspect by name, tag and ID prefix', async () => {
    const since = await eventsSince();
    expectStatus(await req('POST', `/plugins/create?name=${name}`, pluginTar(pluginDir)), 204, 'create');
    const plugin = await get(name);
    assert.equal(plugin.Name, `${name}:latest`);
    assert.equal(plugin.Enabled, false);
    assert.deepEqual(plugin.Config.Interface.Types, ['docker.volumedriver/1.0']);
    assert.deepEqual(plugin.Settings.Env, ['DEBUG=0']);
    assert.deepEqual(plugin.Settings.Args, ['/data']);
    assert.equal((await get(`${name}:latest`)).Id, plugin.Id);
    assert.equal((await get(plugin.Id.slice(0, 10))).Id, plugin.Id);

    const list = async (filters: object) =>
      expectStatus(await req('GET', `/plugins?filters=${encodeURIComponent(JSON.stringify(filters))}`), 200)
        .json<Plugin[]>()
        .map((p) => p.Name);
    assert.deepEqual(await list({}), [`${name}:latest`]);
    assert.deepEqual(await list({ capability: ['volumedriver'] }), [`${name}:latest`]);
    assert.deepEqual(await list({ capability: ['networkdriver'] }), []);
    assert.deepEqual(await list({ enabled: ['false'] }), [`${name}:latest`]);
    assert.deepEqual(await list({ enabled: ['true'] }), []);
    expectStatus(await req('GET', `/plugins?filters=${encodeURIComponent('{"enabled":["maybe"]}')}`), 400);
    expectStatus(await req('GET', `/plugins?filters=${encodeURIComponent('{"color":["red"]}')}`), 400);

    const missing = expectStatus(await req('GET', '/plugins/no-such-plugin/json'), 404);
    assert.match(missing.json<{ message: string }>().message, /plugin "no-such-plugin" not found/);
    const again = expectStatus(await req('POST', `/plugins/create?name=${name}`, pluginTar(pluginDir)), 409);
    assert.match(again.json<{ message: string }>().message, /already exists/);
    expectStatus(await req('POST', '/plugins/create?name=bad', Buffer.from('not a tar at all')), 400);
    const noRootfs = expectStatus(
      await req('POST', '/plugins/create?name=bad', pluginTar(pluginDir, ['config.json'])),
      400,
    );
    assert.match(noRootfs.json<{ message: string }>().message, /no rootfs directory/);
    const noConfig = expectStatus(
      await req('POST', '/plugins/create?name=bad', pluginTar(pluginDir, ['rootfs'])),
      400,
    );
    assert.match(noConfig.json<{ message: string }>().message, /no config\.json/);
    expectStatus(await req('GET', '/plugins/bad/json'), 404);
    const events = await engineEvents(svcd, since, { type: ['plugin'] });
    assert.deepEqual(
      events.map((e) => [e.Action, e.Actor.ID, e.Actor.Attributes.name]),
      [['create', plugin.Id, `${name}:latest`]],
    );
  });

  test('set changes what Settable allows, and nothing while enabled', async () => {
    expectStatus(
      await req('POST', `/plugins/${name}/set`, ['DEBUG=1', 'scratch.source=/var/tmp', 'data=/data']),
      204,
    );
    const plugin = await get(name);
    assert.deepEqual(plugin.Settings.Env, ['DEBUG=1']);
    assert.equal(plugin.Settings.Mounts[0].Source, '/var/tmp');
    assert.deepEqual(plugin.Settings.Args, ['/data']);
    const notSettable = expectStatus(
      await req('POST', `/plugins/${name}/set`, ['scratch.destination=/x']),
      400,
    );
    assert.match(notSettable.json<{ message: string }>().message, /only source may be set/);
    const unknown = expectStatus(await req('POST', `/plugins/${name}/set`, ['NOPE=1']), 400);
    assert.match(unknown.json<{ message: string }>().message, /setting "NOPE" not found/);
    expectStatus(await req('POST', `/plugins/${name}/set`, { DEBUG: 1 }), 400);
  });

  test('enable runs it and activates it; the state moves answer as dockerd', async () => {
    const since = await eventsSince();
    expectStatus(await req('POST', `/plugins/${name}/enable?timeout=30`), 200, 'enable');
    const plugin = await get(name);
    assert.equal(plugin.Enabled, true);
    // The activation itself is in the driver's log: it ran and answered on its socket.
    assert.match(calls(plugin), /^Plugin\.Activate/m);
    const twice = expectStatus(await req('POST', `/plugins/${name}/enable`), 409);
    assert.match(twice.json<{ message: string }>().message, /already enabled/);
    expectStatus(await req('POST', `/plugins/${name}/set`, ['DEBUG=2']), 409);
    const active = expectStatus(await req('DELETE', `/plugins/${name}`), 409);
    assert.match(active.json<{ message: string }>().message, /is enabled/);
    expectStatus(await req('POST', `/plugins/${name}/disable`), 200, 'disable');
    assert.equal((await get(name)).Enabled, false);
    const disabled = expectStatus(await req('POST', `/plugins/${name}/disable`), 409);
    assert.match(disabled.json<{ message: string }>().message, /already disabled/);
    expectStatus(await req('POST', `/plugins/${name}/enable`), 200, 'enable again');
    const events = await engineEvents(svcd, since, { type: ['plugin'] });
    assert.deepEqual(
      events.map((e) => e.Action),
      ['enable', 'disable', 'enable'],
    );
  });

  test('a plugin volume: created by the driver, data kept across containers, mounted per container', async () => {
    const plugin = await get(name);
    const created = expectStatus(
      await req('POST', '/volumes/create', { Name: 'pvol', Driver: name, DriverOpts: { size: '1' } }),
      201,
    ).json<Volume>();
    assert.equal(created.Driver, `${name}:latest`);
    assert.equal(created.Mountpoint, join(dataDir(plugin), 'volumes', 'pvol'));
    assert.deepEqual(created.Status, { 'served-by': 'svc-test-driver' });
    assert.ok(existsSync(join(dataDir(plugin), 'volumes', 'pvol')));

    const runWith = async (cmd: string, volumeDriver?: string) => {
      const body = {
        Image: 'busybox',
        Cmd: ['sh', '-c', cmd],
        HostConfig: { Binds: ['pvol:/v'], ...(volumeDriver ? { VolumeDriver: volumeDriver } : {}) },
      };
      const id = expectStatus(await req('POST', '/containers/create', body), 201).json<{ Id: string }>().Id;
      expectStatus(await req('POST', `/containers/${id}/start`), 204, 'start');
      const wait = expectStatus(await req('POST', `/containers/${id}/wait`), 200).json<{
        StatusCode: number;
      }>();
      const logs = (await req('GET', `/containers/${id}/logs?stdout=1`)).body.subarray(8).toString();
      expectStatus(await req('DELETE', `/containers/${id}`), 204);
      return { id, code: wait.StatusCode, logs };
    };
    const writer = await runWith('echo from-the-first > /v/file', name);
    assert.equal(writer.code, 0);
    assert.equal(readFileSync(join(dataDir(plugin), 'volumes', 'pvol', 'file'), 'utf8'), 'from-the-first\n');
    const reader = await runWith('cat /v/file');
    assert.equal(reader.logs.trim(), 'from-the-first');
    const log = await eventually(
      async () => calls(plugin),
      (text) => text.includes(`VolumeDriver.Unmount pvol ${reader.id}`),
    );
    for (const line of [
      'VolumeDriver.Create pvol',
      `VolumeDriver.Mount pvol ${writer.id}`,
      `VolumeDriver.Unmount pvol ${writer.id}`,
      `VolumeDriver.Mount pvol ${reader.id}`,
      `VolumeDriver.Unmount pvol ${reader.id}`,
      'VolumeDriver.Get pvol',
    ])
      assert.ok(log.includes(line), `${line} in\n${log}`);

    // A volume only the driver knows (made behind svcd's back) is listed too, from VolumeDriver.List.
    mkdirSync(join(dataDir(plugin), 'volumes', 'driver-only'));
    const listed = expectStatus(await req('GET', '/volumes'), 200).json<{ Volumes: Volume[] }>().Volumes;
    assert.deepEqual(listed.map((v) => [v.Name, v.Driver, v.Mountpoint]).sort(), [
      ['driver-only', `${name}:latest`, join(dataDir(plugin), 'volumes', 'driver-only')],
      ['pvol', `${name}:latest`, join(dataDir(plugin), 'volumes', 'pvol')],
    ]);
    rmSync(join(dataDir(plugin), 'volumes', 'driver-only'), { recursive: true });

    const inUse = expectStatus(await req('POST', `/plugins/${name}/disable`), 409);
    assert.match(inUse.json<{ message: string }>().message, /is in use/);
    expectStatus(await req('DELETE', '/volumes/pvol'), 204);
    assert.match(calls(plugin), /VolumeDriver\.Remove pvol/);
    assert.equal(existsSync(join(dataDir(plugin), 'volumes', 'pvol')), false);
  });

  test("a driver's error reaches the client; a driver that hangs times out and svcd keeps serving", async () => {
    const refused = expectStatus(
      await req('POST', '/volumes/create', { Name: 'fail-one', Driver: name }),
      500,
    );
    assert.match(
      refused.json<{ message: string }>().message,
      /VolumeDriver\.Create: the test driver refuses fail-one/,
    );
    expectStatus(await req('GET', '/volumes/fail-one'), 404);

    expectStatus(await req('POST', '/volumes/create', { Name: 'hang-one', Driver: name }), 201);
    const body = { Image: 'busybox', Cmd: ['true'], HostConfig: { Binds: ['hang-one:/v'] } };
    const id = expectStatus(await req('POST', '/containers/create', body), 201).json<{ Id: string }>().Id;
    const start = req('POST', `/containers/${id}/start`);
    // While the driver holds the Mount, svcd still answers.
    expectStatus(await req('GET', '/_ping'), 200);
    expectStatus(await req('GET', '/plugins'), 200);
    const res = expectStatus(await start, 500);
    assert.match(
      res.json<{ message: string }>().message,
      /VolumeDriver\.Mount: timeout: volume plugin .* did not answer within 3s/,
    );
    expectStatus(await req('DELETE', `/containers/${id}?force=1`), 204);
    expectStatus(await req('DELETE', '/volumes/hang-one'), 204);
  });

  test('an unknown or disabled driver is refused as dockerd words it', async () => {
    const unknown = expectStatus(
      await req('POST', '/volumes/create', { Name: 'xvol', Driver: 'nosuch' }),
      404,
    );
    assert.equal(
      unknown.json<{ message: string }>().message,
      'error looking up volume plugin nosuch: plugin "nosuch" not found',
    );
    const run = expectStatus(
      await req('POST', '/containers/create', {
        Image: 'busybox',
        HostConfig: { Binds: ['yvol:/v'], VolumeDriver: 'nosuch' },
      }),
      404,
    );
    assert.match(run.json<{ message: string }>().message, /plugin "nosuch" not found/);
  });

  test('a legacy plugin found by its socket in the plugins directory serves volumes', async () => {
    const data = mkdtempSync(join(legacyDir, 'data-'));
    const driver = join(pluginDir, 'rootfs', 'driver');
    legacy = spawn(driver, [join(legacyDir, 'outside.sock'), data], { stdio: 'ignore' });
    await eventually(
      async () => existsSync(join(legacyDir, 'outside.sock')),
      (up) => up,
    );
    const vol = expectStatus(
      await req('POST', '/volumes/create', { Name: 'lvol', Driver: 'outside' }),
      201,
    ).json<Volume>();
    assert.equal(vol.Driver, 'outside');
    assert.equal(vol.Mountpoint, join(data, 'volumes', 'lvol'));
    expectStatus(await req('DELETE', '/volumes/lvol'), 204);
    assert.match(
      readFileSync(join(data, 'calls.log'), 'utf8'),
      /Plugin\.Activate[\s\S]*VolumeDriver\.Create lvol[\s\S]*VolumeDriver\.Remove lvol/,
    );
  });

  test('push to a registry, then privileges, pull with an alias and upgrade from it', async () => {
    const remote = `${registry.host}/plugins/voldriver:1.0`;
    expectStatus(await req('POST', `/plugins/create?name=${remote}`, pluginTar(pluginDir)), 204);
    const push = expectStatus(await req('POST', `/plugins/${remote}/push`), 200).text();
    assert.match(push, /1\.0: digest: sha256:[0-9a-f]{64}/);
    const manifest = await fetch(`${registry.url}/v2/plugins/voldriver/manifests/1.0`, {
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    const body = (await manifest.json()) as {
      config: { mediaType: string };
      layers: { mediaType: string }[];
    };
    assert.equal(body.config.mediaType, 'application/vnd.docker.plugin.v1+json');
    assert.deepEqual(
      body.layers.map((l) => l.mediaType),
      ['application/vnd.docker.image.rootfs.diff.tar.gzip'],
    );

    const privileges = expectStatus(await req('GET', `/plugins/privileges?remote=${remote}`), 200).json<
      object[]
    >();
    assert.deepEqual(privileges, [
      { Name: 'network', Description: 'permissions to access a network', Value: ['host'] },
      { Name: 'mount', Description: 'host path to mount', Value: ['/tmp'] },
      {
        Name: 'capabilities',
        Description: 'list of additional capabilities required',
        Value: ['CAP_SYS_ADMIN'],
      },
    ]);
    const wrong = expectStatus(await req('POST', `/plugins/pull?remote=${remote}&name=pulled`, []), 400);
    assert.match(wrong.json<{ message: string }>().message, /incorrect privileges/);
    const since = await eventsSince();
    const pull = expectStatus(
      await req('POST', `/plugins/pull?remote=${remote}&name=pulled`, privileges),
      200,
    );
    assert.match(pull.text(), /Installed plugin pulled:latest/);
    // The docker CLI enables what it installed by this name.
    assert.equal(pull.headers['docker-plugin-name'], 'pulled:latest');
    const pulled = await get('pulled');
    assert.equal(pulled.PluginReference, remote);
    assert.equal(pulled.Enabled, false);
    assert.ok(existsSync(join(svcd.dataRoot, 'plugins', pulled.Id, 'rootfs', 'driver')));
    assert.deepEqual(
      (await engineEvents(svcd, since, { type: ['plugin'] })).map((e) => e.Action),
      ['install'],
    );
    const dup = expectStatus(
      await req('POST', `/plugins/pull?remote=${remote}&name=pulled`, privileges),
      409,
    );
    assert.match(dup.json<{ message: string }>().message, /already exists/);

    expectStatus(await req('POST', '/plugins/pulled/upgrade?remote=' + remote, privileges), 200);
    expectStatus(await req('POST', '/plugins/pulled/enable'), 200);
    expectStatus(await req('POST', '/plugins/pulled/upgrade?remote=' + remote, privileges), 409);
    expectStatus(await req('DELETE', '/plugins/pulled?force=1'), 200);
    expectStatus(await req('GET', '/plugins/pulled/json'), 404);
    expectStatus(await req('DELETE', `/plugins/${remote}`), 200);
    const notPlugin = expectStatus(
      await req('GET', `/plugins/privileges?remote=${registry.host}/nothing:here`),
      404,
    );
    assert.match(notPlugin.json<{ message: string }>().message, /nothing/);
  });

  test('an enabled plugin runs again after svcd restarts, and its volumes work', async () => {
    const plugin = await get(name);
    await svcd.stop();
    await svcd.start();
    assert.equal((await get(name)).Enabled, true);
    expectStatus(await req('POST', '/volumes/create', { Name: 'after', Driver: name }), 201);
    const activations = calls(plugin).match(/Plugin\.Activate/g) ?? [];
    assert.ok(activations.length >= 3, calls(plugin));
    expectStatus(await req('DELETE', '/volumes/after'), 204);
    const since = await eventsSince();
    expectStatus(await req('POST', `/plugins/${name}/disable`), 200);
    expectStatus(await req('DELETE', `/plugins/${name}`), 200);
    assert.deepEqual(
      (await engineEvents(svcd, since, { type: ['plugin'] })).map((e) => e.Action),
      ['disable', 'remove'],
    );
    assert.equal(existsSync(join(svcd.dataRoot, 'plugins', plugin.Id)), false);
  });
});
