// Networks on a real svcd through the docker CLI and docker-compose: bridge networks on CNI,
// published ports, names resolved on user networks, connect/disconnect on a running container.
// Traffic goes only to 127.0.0.1, to an address on an interface this test adds, and to the test's
// containers, each request bounded in time.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { useEngine } from '../../../testing/containers-fixture';
import { destroySvcd, startSvcd } from '../../../testing/svcd-harness';
import { useDockerCli } from '../../../testing/docker-cli';
import { pollUntil } from '../../../testing/poll';
import { httpGet, served, webCommand } from '../../../testing/host-http';
import { importBusybox } from '../../../testing/busybox-image';
import {
  destroyDockerd,
  dockerdMissing,
  startDockerd,
  type DockerdPeer,
} from '../../../testing/dockerd-peer';
import { claimSuiteSubnets } from '../../../testing/free-subnet';
import { freePort } from '../../../testing/distribution';

const run = promisify(execFile);

describe('networks through the docker CLI and docker-compose', () => {
  const dummy = `svcdum${process.pid % 100000}`;
  const dummyIp = '198.18.77.1';
  after(() => {
    try {
      execFileSync('ip', ['link', 'del', dummy], { stdio: 'ignore' });
    } catch {}
  });
  const suite = useEngine();
  // Host ports and subnets of this suite's own: other suites run beside it.
  let [webPort, otherPort, firstPort, halfPort] = ['', '', '', ''];
  const net = claimSuiteSubnets();
  before(async () => {
    [webPort, otherPort, firstPort, halfPort] = [
      String(await freePort()),
      String(await freePort()),
      String(await freePort()),
      String(await freePort()),
    ];
  });
  const { docker, env, scratch } = useDockerCli(suite);
  before(() => {
    // A host address this test owns, to show published ports answer on the host's addresses
    // (on a veth of its own: this kernel has no dummy links).
    execFileSync('ip', ['link', 'add', dummy, 'type', 'veth', 'peer', 'name', `${dummy}p`]);
    execFileSync('ip', ['addr', 'add', `${dummyIp}/32`, 'dev', dummy]);
    execFileSync('ip', ['link', 'set', dummy, 'up']);
  });

  test('the built-in networks are listed and cannot be created or removed', async () => {
    assert.deepEqual(
      (await docker('network', 'ls', '--format', '{{.Name}} {{.Driver}}')).split('\n').sort(),
      ['bridge bridge', 'host host', 'none null'],
    );
    await assert.rejects(docker('network', 'rm', 'bridge'), /pre-defined network and cannot be removed/);
    await assert.rejects(docker('network', 'create', 'host'), /pre-defined network/);
    await assert.rejects(docker('network', 'create', '-d', 'overlay', 'ov'), /swarm/);
  });

  test('legacy links on the default bridge: environment, hosts entry, inspect, refusals', async () => {
    await docker(
      'run',
      '-d',
      '--name',
      'linkdb',
      '-e',
      'SECRET=s3',
      '--expose',
      '5432',
      'busybox',
      'sleep',
      '120',
    );
    const ip = await docker('inspect', 'linkdb', '--format', '{{.NetworkSettings.IPAddress}}');
    const out = await docker(
      'run',
      '--rm',
      '--name',
      'linkapp',
      '--link',
      'linkdb:database',
      'busybox',
      'sh',
      '-c',
      'env | grep ^DATABASE | sort; grep database /etc/hosts; ping -c 1 -W 2 database >/dev/null && echo reached',
    );
    assert.deepEqual(out.split('\n'), [
      'DATABASE_ENV_SECRET=s3',
      'DATABASE_NAME=/linkapp/database',
      `DATABASE_PORT=tcp://${ip}:5432`,
      `DATABASE_PORT_5432_TCP=tcp://${ip}:5432`,
      `DATABASE_PORT_5432_TCP_ADDR=${ip}`,
      'DATABASE_PORT_5432_TCP_PORT=5432',
      'DATABASE_PORT_5432_TCP_PROTO=tcp',
      `${ip}\tdatabase ${await docker('inspect', 'linkdb', '--format', '{{.Config.Hostname}}')} linkdb`,
      'reached',
    ]);
    // On a user network a link is an alias the linking container resolves, with no environment.
    await docker('network', 'create', '--subnet', net.subnet(13), 'linknet');
    await docker('network', 'connect', 'linknet', 'linkdb');
    const onNet = await docker(
      'run',
      '--rm',
      '--network',
      'linknet',
      '--link',
      'linkdb:store',
      'busybox',
      'sh',
      '-c',
      'env | grep -c ^STORE_ || true; ping -c 1 -W 2 store >/dev/null && echo reached',
    );
    assert.deepEqual(onNet.split('\n'), ['0', 'reached']);
    await docker('network', 'disconnect', 'linknet', 'linkdb');
    await docker('network', 'rm', 'linknet');
    await docker('create', '--name', 'linked', '--link', 'linkdb', 'busybox', 'true');
    assert.equal(
      await docker('inspect', 'linked', '--format', '{{json .HostConfig.Links}}'),
      '["/linkdb:/linked/linkdb"]',
    );
    // A missing target is a 400 (a 404 would make the CLI try to pull the image).
    await assert.rejects(
      docker('create', '--link', 'nosuch:x', 'busybox', 'true'),
      /could not get container for nosuch/,
    );
    await docker('stop', '-t', '0', 'linkdb');
    await assert.rejects(
      docker('start', 'linked'),
      /Cannot link to a non running container: \/linkdb AS \/linked\/linkdb/,
    );
    await docker('rm', '-f', 'linked', 'linkdb');
  });

  test('run -p publishes on 127.0.0.1 and the host address; -P picks a port, docker port shows it', async () => {
    await docker(
      'run',
      '-d',
      '--name',
      'web',
      '-p',
      `${webPort}:80`,
      'busybox',
      'sh',
      '-c',
      webCommand('hello-web'),
    );
    assert.equal(await docker('port', 'web', '80'), `0.0.0.0:${webPort}`);
    assert.equal(await served('127.0.0.1', webPort), 'hello-web');
    assert.equal(await httpGet(dummyIp, webPort), 'hello-web');
    await assert.rejects(
      docker('run', '-d', '--name', 'clash', '-p', `${webPort}:80`, 'busybox', 'sleep', '30'),
      /port is already allocated/,
    );
    await docker('rm', '-f', 'clash');
    await docker(
      'run',
      '-d',
      '--name',
      'anyport',
      '--expose',
      '80',
      '-P',
      'busybox',
      'sh',
      '-c',
      webCommand('ephemeral'),
    );
    const mapped = await docker('port', 'anyport', '80/tcp');
    const port = /:(\d+)$/.exec(mapped)?.[1];
    assert.ok(port && Number(port) > 1024, mapped);
    assert.equal(await served('127.0.0.1', port), 'ephemeral');
    assert.match(
      await docker('ps', '--filter', 'name=anyport', '--format', '{{.Ports}}'),
      new RegExp(`0.0.0.0:${port}->80/tcp`),
    );
    await docker('rm', '-f', 'web', 'anyport');
    // Released: the port answers nothing now.
    assert.equal(await httpGet('127.0.0.1', webPort), '');
  });

  test('a user network: names and aliases resolve, inspect lists the members, overlaps are refused', async () => {
    await docker('network', 'create', '--subnet', net.subnet(7), '--label', 'team=x', 'appnet');
    await assert.rejects(docker('network', 'create', '--subnet', net.wide, 'clashnet'), /overlaps/);
    await assert.rejects(docker('network', 'create', 'appnet'), /already exists/);
    await docker(
      'run',
      '-d',
      '--name',
      'db',
      '--network',
      'appnet',
      '--network-alias',
      'database',
      'busybox',
      'sh',
      '-c',
      webCommand('db-here'),
    );
    const out = await docker(
      'run',
      '--rm',
      '--network',
      'appnet',
      'busybox',
      'sh',
      '-c',
      'ping -c1 -W2 db >/dev/null && echo ping-ok; printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 3 database 80 | tail -1',
    );
    assert.equal(out, 'ping-ok\ndb-here');
    // The network's name server answers for names, aliases and short IDs.
    const dbId = (await docker('inspect', '-f', '{{.Id}}', 'db')).slice(0, 12);
    const dbIp = await docker('inspect', '-f', '{{.NetworkSettings.Networks.appnet.IPAddress}}', 'db');
    for (const name of ['db', 'database', dbId]) {
      const looked = await docker('run', '--rm', '--network', 'appnet', 'busybox', 'nslookup', name);
      assert.match(looked, new RegExp(`Address: ${dbIp.replace(/\./g, '\\.')}`), looked);
    }
    assert.match(
      await docker(
        'network',
        'inspect',
        '-f',
        '{{range .Containers}}{{.Name}} {{.IPv4Address}}{{end}}',
        'appnet',
      ),
      new RegExp(`^db ${net.prefix(7).replaceAll('.', '\\.')}\\.\\d+/24$`),
    );
    assert.equal(
      await docker('network', 'ls', '-q', '--filter', 'label=team=x', '--format', '{{.Name}}'),
      'appnet',
    );
    await assert.rejects(docker('network', 'rm', 'appnet'), /active endpoints/);
    // The default bridge does not resolve names.
    assert.match(
      await docker(
        'run',
        '--rm',
        'busybox',
        'sh',
        '-c',
        'ping -c1 -W1 db >/dev/null 2>&1 && echo found || echo not-found',
      ),
      /not-found/,
    );
  });

  test('connect and disconnect change the interfaces of a running container', async () => {
    await docker('network', 'create', 'second');
    const before = await docker('exec', 'db', 'sh', '-c', "ip -4 -o addr | awk '{print $2}'");
    assert.equal(before, 'lo\neth0');
    await docker('network', 'connect', 'second', 'db');
    assert.equal(
      await docker('exec', 'db', 'sh', '-c', "ip -4 -o addr | awk '{print $2}'"),
      'lo\neth0\neth1',
    );
    assert.match(
      await docker('inspect', '-f', '{{range $k, $v := .NetworkSettings.Networks}}{{$k}} {{end}}', 'db'),
      /appnet second/,
    );
    await docker('network', 'disconnect', 'second', 'db');
    assert.equal(await docker('exec', 'db', 'sh', '-c', "ip -4 -o addr | awk '{print $2}'"), 'lo\neth0');
    await docker('rm', '-f', 'db');
    await docker('network', 'rm', 'appnet', 'second');
  });

  test('inter-container traffic off: members reach the gateway, not each other; removal takes the rule', async () => {
    await docker(
      'network',
      'create',
      '--subnet',
      net.subnet(9),
      '-o',
      'com.docker.network.bridge.enable_icc=false',
      'noicc',
    );
    await docker('run', '-d', '--name', 'icc-a', '--network', 'noicc', 'busybox', 'sleep', '120');
    await docker('run', '-d', '--name', 'icc-b', '--network', 'noicc', 'busybox', 'sleep', '120');
    const ping = (target: string) =>
      docker('exec', 'icc-a', 'sh', '-c', `ping -c 1 -W 2 ${target} >/dev/null && echo yes || echo no`);
    assert.equal(await ping(`${net.prefix(9)}.1`), 'yes', 'the gateway answers');
    assert.equal(await ping('icc-b'), 'no', 'the other member does not');
    const bridge = JSON.parse(await docker('network', 'inspect', 'noicc')) as Array<{
      Options: Record<string, string>;
    }>;
    assert.equal(bridge[0].Options['com.docker.network.bridge.enable_icc'], 'false');
    await docker('rm', '-f', 'icc-a', 'icc-b');
    await docker('network', 'rm', 'noicc');
    assert.doesNotMatch(execFileSync('iptables', ['-S', 'FORWARD'], { encoding: 'utf8' }), /svcd no icc/);
  });

  describe('network events beside Docker Engine 20.10', { skip: dockerdMissing() }, () => {
    let dockerd: DockerdPeer;
    before(async () => {
      dockerd = await startDockerd();
      await importBusybox(dockerd);
    });
    after(() => destroyDockerd(dockerd));

    /** The same CLI session on an engine; its network events as `Action attributes…` lines. */
    async function session(host: string, subnet: string): Promise<string[]> {
      const cli = (...args: string[]) =>
        run('docker', args, { env: { ...env(), DOCKER_HOST: host }, encoding: 'utf8' }).then((r) =>
          r.stdout.trim(),
        );
      const since = (Date.now() / 1000).toFixed(3);
      await cli('network', 'create', '--subnet', subnet, '--label', 'k=v', 'evnet');
      await cli('run', '-d', '--name', 'evc', '--network', 'evnet', 'busybox', 'sleep', '60');
      await cli('network', 'disconnect', 'evnet', 'evc');
      await cli('network', 'connect', 'evnet', 'evc');
      await cli('rm', '-f', 'evc');
      await cli('network', 'rm', 'evnet');
      await cli('network', 'create', '--subnet', subnet, 'evprune');
      await cli('network', 'prune', '-f');
      const until = (Date.now() / 1000 + 0.5).toFixed(3);
      const lines = await cli(
        'events',
        '--since',
        since,
        '--until',
        until,
        '--filter',
        'type=network',
        '--format',
        '{{json .}}',
      );
      return lines
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { Action: string; Actor: { Attributes: Record<string, string> } })
        .map(
          (e) =>
            `${e.Action} ${Object.keys(e.Actor.Attributes).sort().join(',')} ${e.Actor.Attributes.name ?? ''} ${e.Actor.Attributes.type ?? ''}`,
        );
    }

    test('the same network events, with the same attributes, for the same session', async () => {
      const theirs = await session(`unix://${dockerd.socket}`, net.subnet(11));
      const ours = await session(`unix://${suite().svcd.socket}`, net.subnet(12));
      // dockerd announces `network disconnect` of a running container twice (the endpoint's
      // leave and the disconnect itself); svcd once. Everything else is compared as it is.
      const once = (events: string[]) =>
        events.filter((e, i) => !(e.startsWith('disconnect') && e === events[i - 1]));
      assert.deepEqual(ours, once(theirs));
      assert.equal(theirs.length - once(theirs).length, 1);
    });
  });

  test('a second svcd on another data root runs beside the first: own bridge, own subnet, own ports', async () => {
    await docker(
      'run',
      '-d',
      '--name',
      'first-web',
      '-p',
      `${firstPort}:80`,
      'busybox',
      'sh',
      '-c',
      webCommand('from-first'),
    );
    const second = await startSvcd();
    try {
      await importBusybox(second);
      const other = (...args: string[]) =>
        run('docker', args, {
          env: { ...env(), DOCKER_HOST: `unix://${second.socket}` },
          encoding: 'utf8',
        }).then((r) => r.stdout.trim());
      await other(
        'run',
        '-d',
        '--name',
        'second-web',
        '-p',
        `${otherPort}:80`,
        'busybox',
        'sh',
        '-c',
        webCommand('from-second'),
      );
      const subnet = async (cli: (...a: string[]) => Promise<string>) =>
        cli('network', 'inspect', 'bridge', '--format', '{{range .IPAM.Config}}{{.Subnet}}{{end}}');
      assert.notEqual(await subnet(other), await subnet(docker));
      assert.equal(await served('127.0.0.1', firstPort), 'from-first');
      assert.equal(await served('127.0.0.1', otherPort), 'from-second');
      await other('rm', '-f', 'second-web');
    } finally {
      await destroySvcd(second);
    }
    // The first is untouched by the second's going.
    assert.equal(await httpGet('127.0.0.1', firstPort), 'from-first');
    await docker('rm', '-f', 'first-web');
  });

  test('an internal network has no route out', async () => {
    await docker('network', 'create', '--internal', 'sealed');
    const routes = await docker(
      'run',
      '--rm',
      '--network',
      'sealed',
      'busybox',
      'sh',
      '-c',
      'ip route; echo end',
    );
    assert.doesNotMatch(routes, /default/);
    await docker('network', 'rm', 'sealed');
  });

  test('kill -9 of svcd with a published port: after the restart the port still answers, and removal leaks nothing', async () => {
    const { svcd } = suite();
    await docker(
      'run',
      '-d',
      '--name',
      'survivor',
      '-p',
      `127.0.0.1:${firstPort}:80`,
      'busybox',
      'sh',
      '-c',
      webCommand('still-here'),
    );
    assert.equal(await served('127.0.0.1', firstPort), 'still-here');
    await svcd.kill9();
    await svcd.start();
    assert.equal(await httpGet('127.0.0.1', firstPort), 'still-here');
    assert.equal(await docker('port', 'survivor', '80'), `127.0.0.1:${firstPort}`);
    await docker('rm', '-f', 'survivor');
    assert.equal(await httpGet('127.0.0.1', firstPort), '');
    const links = execFileSync('ip', ['-o', 'link', 'show', 'master', svcd.bridge], { encoding: 'utf8' });
    assert.equal(links.trim(), '', 'no veth left on the bridge');
    const nat = execFileSync('iptables', ['-t', 'nat', '-S'], { encoding: 'utf8' });
    assert.doesNotMatch(nat, new RegExp(`dport ${firstPort} `));
  });

  test("svcd killed while removing an exited container's endpoint: the next start removes its rule, veth and namespace", async () => {
    const { svcd } = suite();
    await docker(
      'run',
      '-d',
      '--name',
      'halfgone',
      '-p',
      `127.0.0.1:${halfPort}:80`,
      'busybox',
      'sh',
      '-c',
      webCommand('half'),
    );
    assert.equal(await served('127.0.0.1', halfPort), 'half');
    const id = await docker('inspect', 'halfgone', '--format', '{{.Id}}');
    const pid = Number(await docker('inspect', 'halfgone', '--format', '{{.State.Pid}}'));
    await svcd.kill9();
    process.kill(pid, 'SIGKILL');
    // Its namespace holds the veth until the last process in it is gone.
    await pollUntil('the container process gone', async () =>
      existsSync(`/proc/${pid}`) ? undefined : true,
    );
    // What svcd writes at the exit before CNI's DEL runs: exited, no endpoints claimed.
    const recordPath = join(svcd.dataRoot, 'containers', id, 'config.json');
    const record = JSON.parse(readFileSync(recordPath, 'utf8')) as {
      State: Record<string, unknown>;
      Endpoints: unknown;
      Ports: unknown;
    };
    Object.assign(record.State, { Status: 'exited', Running: false, Pid: 0, ExitCode: 137 });
    record.Endpoints = {};
    record.Ports = {};
    writeFileSync(recordPath, JSON.stringify(record));
    const netns = join(svcd.dataRoot, 'netns', id);
    assert.ok(existsSync(netns), 'the namespace outlived the killed svcd');
    await svcd.start();
    assert.equal(existsSync(netns), false, 'namespace file removed');
    assert.doesNotMatch(readFileSync('/proc/mounts', 'utf8'), new RegExp(`netns/${id}`));
    const links = execFileSync('ip', ['-o', 'link', 'show', 'master', svcd.bridge], { encoding: 'utf8' });
    assert.equal(links.trim(), '', 'no veth left on the bridge');
    assert.doesNotMatch(
      execFileSync('iptables', ['-t', 'nat', '-S'], { encoding: 'utf8' }),
      new RegExp(`dport ${halfPort} `),
    );
    // The container starts again on the same namespace path and port.
    await docker('start', 'halfgone');
    assert.equal(await served('127.0.0.1', halfPort), 'half');
    await docker('rm', '-f', 'halfgone');
  });

  test('docker-compose: one service reaches the other by name, the published port answers, down removes it all', async () => {
    const dir = scratch('svc-net-compose-');
    writeFileSync(
      join(dir, 'docker-compose.yml'),
      [
        'version: "2.4"',
        'services:',
        '  api:',
        '    image: busybox',
        `    command: sh -c '${webCommand('api-ok')}'`,
        `    ports: ["127.0.0.1:${otherPort}:80"]`,
        '  client:',
        '    image: busybox',
        // The api's httpd may not listen yet on a busy machine: asked again for up to 20 s.
        `    command: sh -c 'for i in $$(seq 20); do r=$$(printf "GET / HTTP/1.0\\r\\n\\r\\n" | nc -w 3 api 80 | tail -1); [ -n "$$r" ] && break; sleep 1; done; echo $$r'`,
        '',
      ].join('\n'),
    );
    const compose = (...args: string[]) =>
      run('docker-compose', ['-p', 'netproj', ...args], { env: env(), cwd: dir, encoding: 'utf8' });
    await compose('up', '-d');
    await docker('wait', 'netproj_client_1');
    assert.equal(await docker('logs', 'netproj_client_1'), 'api-ok');
    assert.equal(await served('127.0.0.1', otherPort), 'api-ok');
    await compose('down');
    assert.equal(await docker('network', 'ls', '-q', '--filter', 'name=netproj'), '');
    assert.equal(await docker('ps', '-aq'), '');
  });
});
