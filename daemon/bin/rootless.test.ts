// Rootless svcd: started as an unprivileged user (so rootless by default), inside rootlesskit's
// user namespace, with the real containerd, runc and busybox image.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { once } from 'node:events';
import { createServer } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { destroySvcd, type SvcdInstance } from '../testing/svcd-harness';
import { ensureRootlessUser, rootlessSkipReason, startRootlessSvcd } from '../testing/rootless-harness';
import { startRegistry } from '../registry/testing/registry-process';
import { http } from '../testing/http-client';
import { importBusybox } from '../testing/busybox-image';
import { expectStatus, inspect, run } from '../testing/containers-fixture';
import { openStream } from '../server/testing/stream-client';
import type { InfoResponse } from '../api/system-types';
import { useDockerCliOn } from '../testing/docker-cli';
import { httpGet, served, webCommand } from '../testing/host-http';
import { freePort } from '../testing/distribution';

const skip = rootlessSkipReason();

describe('rootless svcd', { skip }, () => {
  let svcd: SvcdInstance;
  before(async () => {
    svcd = await startRootlessSvcd();
    await importBusybox(svcd);
  });
  after(() => destroySvcd(svcd));
  const { docker, scratch } = useDockerCliOn(() => svcd.socket);
  // A host address this suite owns (on a veth: this kernel has no dummy links), to show published
  // ports answer on the host's addresses, not only on its loopback.
  const hostLink = `svcrl${process.pid % 100000}`;
  const hostIp = '198.18.79.1';
  before(() => {
    execFileSync('ip', ['link', 'add', hostLink, 'type', 'veth', 'peer', 'name', `${hostLink}p`]);
    execFileSync('ip', ['addr', 'add', `${hostIp}/32`, 'dev', hostLink]);
    execFileSync('ip', ['link', 'set', hostLink, 'up']);
  });
  after(() => execFileSync('ip', ['link', 'del', hostLink]));

  test('/info says rootless, its storage driver and that no cgroup driver is usable here', async () => {
    const info = expectStatus(await svcd.request('GET', '/info'), 200).json<InfoResponse>();
    assert.ok(info.SecurityOptions.includes('name=rootless'), info.SecurityOptions.join(' '));
    // This kernel allows overlay in a user namespace: the probe finds it.
    assert.equal(info.Driver, 'overlayfs');
    assert.deepEqual(info.DriverStatus.at(-1), ['Chosen', 'probed: overlay mount works']);
    assert.equal(info.CgroupDriver, 'none');
    assert.equal(info.MemoryLimit, false);
    assert.equal(info.DockerRootDir, svcd.dataRoot);
  });

  test('a limit is refused with a 400 naming it and the reason', async () => {
    const res = await svcd.request('POST', '/containers/create', {
      body: { Image: 'busybox', Cmd: ['true'], HostConfig: { Memory: 64 * 1024 * 1024 } },
    });
    expectStatus(res, 400);
    assert.match(
      res.json<{ message: string }>().message,
      /^Memory: rootless svcd cannot set resource limits/,
    );
  });

  test('a container runs as root of the namespace, writes logs, takes an exec, gives stats', async () => {
    const id = await run(svcd, { Cmd: ['sh', '-c', 'echo hello from $(id -u); exec sleep 60'] });
    const logs = await openStream(svcd, 'GET', `/containers/${id}/logs?stdout=1&follow=1`, true);
    const exec = expectStatus(
      await svcd.request('POST', `/containers/${id}/exec`, {
        body: { Cmd: ['sh', '-c', 'cat /proc/self/uid_map'], AttachStdout: true },
      }),
      201,
    ).json<{ Id: string }>();
    const s = await openStream(svcd, 'POST', `/exec/${exec.Id}/start`, true, { Detach: false, Tty: false });
    await s.ended;
    // Inside, uid 0 is the test user's own uid outside: nothing in it is root of the host.
    const [inside, outside] = s.stdout.trim().split(/\s+/).map(Number);
    assert.equal(inside, 0);
    assert.notEqual(outside, 0);
    const stats = expectStatus(await svcd.request('GET', `/containers/${id}/stats?stream=0`), 200).json<{
      pids_stats: unknown;
      networks?: Record<string, unknown>;
    }>();
    assert.ok(stats.networks && Object.keys(stats.networks).length > 0, JSON.stringify(stats));
    // Without a cgroup: top finds the processes by their PID namespace; pause says why it cannot.
    const top = expectStatus(await svcd.request('GET', `/containers/${id}/top`), 200).json<{
      Processes: string[][];
    }>();
    assert.ok(
      top.Processes.some((p) => p.at(-1) === 'sleep 60'),
      JSON.stringify(top),
    );
    const pause = expectStatus(await svcd.request('POST', `/containers/${id}/pause`), 409);
    assert.match(
      pause.json<{ message: string }>().message,
      /^Cannot pause container [0-9a-f]{64}: rootless svcd pauses through the container's cgroup, and this host has cgroup v1/,
    );
    expectStatus(await svcd.request('POST', `/containers/${id}/stop?t=1`), 204);
    await logs.ended;
    assert.equal(logs.stdout, 'hello from 0\n');
    expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
  });

  test("docker build's RUN steps run in the namespace too", async () => {
    const dir = scratch('rootless-build-');
    writeFileSync(join(dir, 'Dockerfile'), 'FROM busybox\nRUN echo built-rootless > /built\n');
    await docker('build', '-q', '-t', 'rootless-built', dir);
    assert.equal(await docker('run', '--rm', 'rootless-built', 'cat', '/built'), 'built-rootless');
    await docker('rmi', 'rootless-built');
  });

  test('a named volume and a user network whose containers resolve each other by name', async () => {
    expectStatus(await svcd.request('POST', '/volumes/create', { body: { Name: 'rootless-data' } }), 201);
    expectStatus(
      await svcd.request('POST', '/networks/create', {
        body: { Name: 'rootless-net', IPAM: { Config: [{ Subnet: '10.213.68.0/24' }] } },
      }),
      201,
    );
    const net = { NetworkMode: 'rootless-net' };
    const server = await run(
      svcd,
      {
        Cmd: ['sh', '-c', 'echo kept > /data/file; exec sleep 60'],
        HostConfig: { ...net, Binds: ['rootless-data:/data'] },
      },
      'rootless-server',
    );
    const client = await run(svcd, {
      Cmd: ['sh', '-c', 'sleep 1; ping -c 1 -W 5 rootless-server && cat /data/file'],
      HostConfig: { ...net, Binds: ['rootless-data:/data:ro'] },
    });
    const wait = expectStatus(await svcd.request('POST', `/containers/${client}/wait`), 200);
    const logs = await openStream(svcd, 'GET', `/containers/${client}/logs?stdout=1&stderr=1`, true);
    await logs.ended;
    assert.equal(wait.json<{ StatusCode: number }>().StatusCode, 0, logs.stdout + logs.stderr);
    assert.match(logs.stdout, /from 10\.213\.68\.\d+/);
    assert.match(logs.stdout, /kept\n$/);
    expectStatus(await svcd.request('POST', `/containers/${server}/stop?t=1`), 204);
    for (const id of [client, server]) expectStatus(await svcd.request('DELETE', `/containers/${id}`), 204);
    // The volume outlives its containers: a new one reads what the first wrote.
    const later = await run(svcd, {
      Cmd: ['cat', '/data/file'],
      HostConfig: { Binds: ['rootless-data:/data'] },
    });
    expectStatus(await svcd.request('POST', `/containers/${later}/wait`), 200);
    const kept = await openStream(svcd, 'GET', `/containers/${later}/logs?stdout=1`, true);
    await kept.ended;
    assert.equal(kept.stdout, 'kept\n');
    expectStatus(await svcd.request('DELETE', `/containers/${later}`), 204);
    expectStatus(await svcd.request('DELETE', '/networks/rootless-net'), 204);
    expectStatus(await svcd.request('DELETE', '/volumes/rootless-data'), 204);
  });

  test("published ports answer on the host's 127.0.0.1 through rootlesskit, and go with the container", async () => {
    const [loopPort, allPort, addrPort] = [
      String(await freePort()),
      String(await freePort()),
      String(await freePort()),
    ];
    const heldPort = await freePort();
    const web = (name: string, text: string, ...publish: string[]) =>
      docker('run', '-d', '--name', name, ...publish, 'busybox', 'sh', '-c', webCommand(text));
    await web('loopweb', 'on-loopback', '-p', `127.0.0.1:${loopPort}:80`);
    await web('allweb', 'on-all', '-p', `${allPort}:80`);
    await web('addrweb', 'on-host-address', '-p', `${hostIp}:${addrPort}:80`);
    assert.equal(await docker('port', 'loopweb', '80'), `127.0.0.1:${loopPort}`);
    assert.equal(await docker('port', 'allweb', '80/tcp'), `0.0.0.0:${allPort}`);
    assert.equal(await served('127.0.0.1', loopPort), 'on-loopback');
    assert.equal(await served('127.0.0.1', allPort), 'on-all');
    assert.equal(await served(hostIp, allPort), 'on-all');
    assert.equal(await served(hostIp, addrPort), 'on-host-address');
    assert.equal(await httpGet('127.0.0.1', addrPort), '');
    assert.equal(
      await docker('ps', '--filter', 'name=loopweb', '--format', '{{.Ports}}'),
      `127.0.0.1:${loopPort}->80/tcp`,
    );
    assert.equal(
      await docker(
        'inspect',
        'allweb',
        '--format',
        '{{json .NetworkSettings.Ports}} {{json .HostConfig.PortBindings}}',
      ),
      `{"80/tcp":[{"HostIp":"0.0.0.0","HostPort":"${allPort}"}]} {"80/tcp":[{"HostIp":"","HostPort":"${allPort}"}]}`,
    );
    await assert.rejects(
      docker('run', '-d', '--name', 'clash', '-p', `127.0.0.1:${loopPort}:80`, 'busybox', 'sleep', '30'),
      new RegExp(`Bind for 127.0.0.1:${loopPort} failed: port is already allocated`),
    );
    // A port another program of the host holds: rootlesskit's bind says so, told as dockerd does.
    const holder = createServer().listen(heldPort, '127.0.0.1');
    await once(holder, 'listening');
    try {
      await assert.rejects(
        docker('run', '-d', '--name', 'held', '-p', `127.0.0.1:${heldPort}:80`, 'busybox', 'sleep', '30'),
        new RegExp(`Bind for 127.0.0.1:${heldPort} failed: port is already allocated`),
      );
    } finally {
      holder.close();
    }
    // -P: a port picked by svcd, bound on the host by rootlesskit and answered there.
    await web('anyweb', 'any', '--expose', '80', '-P');
    const port = /^0\.0\.0\.0:(\d+)$/.exec(await docker('port', 'anyweb', '80'))?.[1];
    assert.ok(port, 'a published port');
    assert.equal(await served('127.0.0.1', port), 'any');
    // Stopped, the ports answer nothing; started again, they answer again.
    await docker('stop', '-t', '1', 'loopweb');
    assert.equal(await httpGet('127.0.0.1', loopPort), '');
    assert.equal(await docker('port', 'loopweb'), '');
    await docker('start', 'loopweb');
    assert.equal(await served('127.0.0.1', loopPort), 'on-loopback');
    await docker('rm', '-f', 'loopweb', 'allweb', 'addrweb', 'anyweb', 'clash', 'held');
    assert.equal(await httpGet('127.0.0.1', loopPort), '');
    assert.equal(await httpGet('127.0.0.1', allPort), '');
    assert.equal(await httpGet(hostIp, addrPort), '');
    assert.equal(await httpGet('127.0.0.1', port), '');
  });

  test("a host port below the host's unprivileged start is refused with what to change", async () => {
    const start = Number(readFileSync('/proc/sys/net/ipv4/ip_unprivileged_port_start', 'utf8'));
    const res = await svcd.request('POST', '/containers/create', {
      body: {
        Image: 'busybox',
        Cmd: ['sleep', '30'],
        HostConfig: { PortBindings: { '80/tcp': [{ HostPort: '80' }] } },
      },
    });
    const id = expectStatus(res, 201).json<{ Id: string }>().Id;
    const started = await svcd.request('POST', `/containers/${id}/start`);
    if (start <= 80) {
      expectStatus(started, 204);
    } else {
      expectStatus(started, 400);
      assert.equal(
        started.json<{ message: string }>().message,
        `rootless svcd cannot publish 0.0.0.0:80: this host lets users other than root bind ports from ${start} on (net.ipv4.ip_unprivileged_port_start=${start}); choose a host port from ${start} on, or as root allow it with sysctl net.ipv4.ip_unprivileged_port_start=80`,
      );
    }
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
  });

  test("push to and pull from svc-registry run by the same user on the host's loopback", async () => {
    const reg = await startRegistry({ user: ensureRootlessUser() });
    try {
      const ref = `${reg.host}/rootless/busybox:v1`;
      await docker('tag', 'busybox', ref);
      await docker('push', ref);
      const tags = await http(`${reg.url}/v2/rootless/busybox/tags/list`);
      assert.deepEqual(tags.json(), { name: 'rootless/busybox', tags: ['v1'] });
      // Gone from the engine, so the pull has to fetch it.
      await docker('rmi', ref, 'busybox');
      await docker('pull', ref);
      assert.equal(await docker('run', '--rm', ref, 'echo', 'pulled'), 'pulled');
      await docker('tag', ref, 'busybox');
    } finally {
      await reg.stop();
    }
  });

  test('svcd killed with SIGKILL takes its namespace along: the next one starts, and its containers are recorded exited', async () => {
    const id = await run(svcd, { Cmd: ['sleep', '600'] });
    await svcd.stop('SIGKILL');
    await svcd.start();
    // The containers lived in the namespace of the svcd that was killed: as with rootless Docker
    // (no live-restore), they stopped with it.
    const state = (await inspect(svcd, id)).State;
    assert.equal(state.Running, false);
    assert.notEqual(state.FinishedAt, '0001-01-01T00:00:00Z');
    expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204);
    expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
  });
});
