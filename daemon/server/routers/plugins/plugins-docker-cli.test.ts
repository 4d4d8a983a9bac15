// The docker CLI's plugin commands as a user types them, with the test volume driver, against
// svcd and, the same scenario, against Docker Engine 20.10; pushes go to and installs come from
// a svc-registry on loopback.
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import type { Plugin } from '../../../api/plugin-types';
import { useDockerCliOn, type DockerCli } from '../../../testing/docker-cli';
import { importBusybox } from '../../../testing/busybox-image';
import { startRegistry, type RegistryProcess } from '../../../registry/testing/registry-process';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { buildDriverPlugin } from '../../testing/volume-driver-plugin';

interface Peer extends EngineApi {
  socket: string;
}

/** One engine's run of the scenario: its own registry repository, plugin names and volumes. */
function scenario(
  label: string,
  start: () => Promise<Peer>,
  stop: (engine: Peer | undefined) => Promise<void>,
) {
  let engine: Peer | undefined;
  let registry: RegistryProcess;
  let pluginDir: string;
  let pushedDir: string;
  before(async () => {
    pluginDir = buildDriverPlugin();
    pushedDir = buildDriverPlugin({ marker: 'pushed' });
    registry = await startRegistry();
    engine = await start();
    await importBusybox(engine);
  });
  after(async () => {
    for (const p of (await engine?.request('GET', '/plugins'))?.json<Plugin[]>() ?? []) {
      await engine!.request('DELETE', `/plugins/${p.Id}?force=1`);
    }
    await stop(engine);
    await registry?.stop();
    rmSync(pluginDir, { recursive: true, force: true });
    rmSync(pushedDir, { recursive: true, force: true });
  });
  const cli: DockerCli = useDockerCliOn(() => engine!.socket);
  const { docker } = cli;
  const fails = async (args: string[], pattern: RegExp) => {
    await assert.rejects(docker(...args), (err: Error & { stderr?: string }) => {
      assert.match(err.stderr ?? err.message, pattern);
      return true;
    });
  };

  test(`${label}: plugin create, set, enable, inspect, a volume of it used by two containers, disable`, async () => {
    const name = 'svctest/voldriver';
    assert.equal(await docker('plugin', 'create', name, pluginDir), name);
    assert.equal(await docker('plugin', 'ls', '--format', '{{.Name}} {{.Enabled}}'), `${name}:latest false`);
    await docker('plugin', 'set', name, 'DEBUG=1', 'scratch.source=/var/tmp');
    assert.equal(
      await docker(
        'plugin',
        'inspect',
        '-f',
        '{{.Settings.Env}} {{(index .Settings.Mounts 0).Source}}',
        name,
      ),
      '[DEBUG=1] /var/tmp',
    );
    await fails(['plugin', 'set', name, 'NOPE=1'], /setting "NOPE" not found in the plugin configuration/);
    assert.equal(await docker('plugin', 'enable', name), name);
    assert.equal(await docker('plugin', 'inspect', '-f', '{{.Enabled}}', name), 'true');
    await fails(['plugin', 'enable', name], /already enabled/);
    await fails(['plugin', 'rm', name], /is enabled/);

    assert.equal(await docker('volume', 'create', '-d', name, 'cli-pvol'), 'cli-pvol');
    assert.equal(await docker('volume', 'inspect', '-f', '{{.Driver}}', 'cli-pvol'), `${name}:latest`);
    const runArgs = ['run', '--rm', '--network', 'none', '-v', 'cli-pvol:/v'];
    await docker(...runArgs, 'busybox', 'sh', '-c', 'echo kept > /v/f');
    assert.equal(await docker(...runArgs, '--volume-driver', name, 'busybox', 'cat', '/v/f'), 'kept');
    await fails(['volume', 'create', '-d', 'nosuch', 'cli-x'], /plugin "nosuch" not found/);
    await fails(['plugin', 'disable', name], /is in use/);
    assert.equal(await docker('volume', 'rm', 'cli-pvol'), 'cli-pvol');
    assert.equal(await docker('plugin', 'disable', name), name);
    await fails(['plugin', 'disable', name], /already disabled/);
    assert.equal(await docker('plugin', 'rm', name), name);
    assert.equal(await docker('plugin', 'ls', '-q'), '');
  });

  test(`${label}: plugin push to svc-registry, install from it with an alias, upgrade, rm`, async () => {
    const remote = `${registry.host}/${label}/voldriver:1.0`;
    await docker('plugin', 'create', remote, pushedDir);
    await docker('plugin', 'push', remote);
    const manifest = await fetch(`${registry.url}/v2/${label}/voldriver/manifests/1.0`, {
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    const pushed = (await manifest.json()) as { config: { mediaType: string } };
    assert.equal(pushed.config.mediaType, 'application/vnd.docker.plugin.v1+json');
    assert.equal(await docker('plugin', 'rm', remote), remote);

    // Settings after the reference are set before the install enables the plugin.
    await docker('plugin', 'install', '--grant-all-permissions', '--alias', 'cli-alias', remote, 'DEBUG=2');
    assert.equal(
      await docker('plugin', 'inspect', '-f', '{{.Name}} {{.Enabled}} {{.PluginReference}}', 'cli-alias'),
      `cli-alias:latest true ${remote}`,
    );
    await fails(
      ['plugin', 'install', '--grant-all-permissions', '--alias', 'cli-alias', remote],
      /already exists/,
    );
    await fails(['plugin', 'upgrade', '--grant-all-permissions', 'cli-alias', remote], /disabled/);
    await docker('plugin', 'disable', 'cli-alias');
    assert.match(
      await docker('plugin', 'upgrade', '--grant-all-permissions', 'cli-alias', remote),
      /Upgraded plugin cli-alias/,
    );
    await docker('plugin', 'enable', 'cli-alias');
    assert.equal(await docker('plugin', 'rm', '-f', 'cli-alias'), 'cli-alias');
    await fails(['plugin', 'inspect', 'cli-alias'], /cli-alias/);
  });
}

describe('docker plugin commands against svcd', () => {
  scenario(
    'svcd',
    (): Promise<SvcdInstance> => startSvcd(),
    (engine) => destroySvcd(engine as SvcdInstance | undefined),
  );
});

describe('docker plugin commands against Docker Engine 20.10', { skip: dockerdMissing() }, () => {
  scenario(
    'dockerd',
    (): Promise<DockerdPeer> => startDockerd(),
    (engine) => destroyDockerd(engine as DockerdPeer | undefined),
  );
});
