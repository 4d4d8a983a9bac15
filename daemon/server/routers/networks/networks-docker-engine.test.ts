// IPv6 networks, MAC addresses, links on user networks, endpoint options and network names, on
// svcd and on Docker Engine 20.10 side by side: the same session through the docker CLI (28, and
// Debian's 20.10 for `run --mac-address`, which CLI 28 refuses below API 1.44), docker-py and raw
// requests, compared once each engine's own subnets are written alike. Subnets: a /16 of 10/8 and
// a /48 of fd00::/8 that the host does not route, svcd's networks low in them, dockerd's high.
// Traffic goes only to the test's containers.
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { repoRoot } from '../../../lib/product';
import type { EngineApi } from '../../../testing/engine-client';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import { useDockerCliOn } from '../../../testing/docker-cli';
import { useEnginePair } from '../../testing/engine-pair';
import { freePort } from '../../../testing/distribution';

const run = promisify(execFile);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** A /16 of 10/8 and a /48 of fd00::/8 that nothing on this host routes. */
function unroutedPrefixes(): { v4: string; v6: string } {
  const routes = execFileSync('ip', ['route', 'show', 'table', 'all'], { encoding: 'utf8' });
  const routes6 = execFileSync('ip', ['-6', 'route', 'show', 'table', 'all'], { encoding: 'utf8' });
  for (;;) {
    const r = randomBytes(6);
    const v4 = `10.${200 + (r[0] % 50)}`;
    // Groups written as engines print them (no leading zeros), so the text compares alike.
    const group = (at: number) => r.readUInt16BE(at).toString(16);
    const v6 = `fd${r.subarray(1, 2).toString('hex')}:${group(2)}:${group(4)}`;
    if (!routes.includes(`${v4}.`) && !routes6.includes(v6.replace(/:0+/g, ':'))) return { v4, v6 };
  }
}

const python = '/usr/bin/python3';
const dockerPyScript = join(repoRoot(), 'daemon/testing/docker-py-client.py');
const dockerPyMissing = () =>
  spawnSync(python, ['-c', 'import docker']).status === 0
    ? undefined
    : 'docker-py is not installed (apt-get install python3-docker)';

/** Only the keys named, in that order. */
const pick = (o: Json | undefined, keys: string[]) => Object.fromEntries(keys.map((k) => [k, o?.[k]]));

describe(
  'IPv6, MAC addresses, links and endpoint options beside Docker Engine 20.10',
  { skip: dockerdMissing() },
  () => {
    const pair = useEnginePair();
    const { v4, v6 } = unroutedPrefixes();
    /** Each engine's side: its socket, API and `n`th networks' subnet prefixes. */
    const side = (name: 'svcd' | 'dockerd') => {
      const offset = name === 'svcd' ? 0 : 100;
      const socket = () => pair()[name].socket;
      const { env } = useDockerCliOn(socket);
      const cli =
        (binary: string) =>
        async (...args: string[]) =>
          (await run(binary, args, { env: env(), encoding: 'utf8' })).stdout.trim();
      return {
        name,
        socket,
        api: (): EngineApi => pair()[name],
        v4: (n: number) => `${v4}.${n + offset}`,
        v6: (n: number) => `${v6}:${n + offset}`,
        docker: cli('docker'),
        /** Debian's docker CLI 20.10. */
        docker20: cli('/usr/bin/docker'),
        /** The text with this engine's subnets written alike: `V4-n.` and `V6-n:`. */
        neutral(text: string): string {
          let out = text;
          for (let n = 1; n < 10; n++)
            out = out
              .replaceAll(`${v4}.${n + offset}.`, `V4-${n}.`)
              .replaceAll(`${v6}:${n + offset}:`, `V6-${n}:`);
          return out;
        },
      };
    };
    type Side = ReturnType<typeof side>;
    const svcd = side('svcd');
    const dockerd = side('dockerd');
    /** The same session on both engines: svcd's result, after checking dockerd's is the same. */
    async function same(session: (s: Side) => Promise<unknown>): Promise<Json> {
      const [ours, theirs] = await Promise.all(
        [svcd, dockerd].map(async (s) => {
          try {
            return JSON.parse(s.neutral(JSON.stringify(await session(s)))) as unknown;
          } catch (err) {
            // A session that failed midway never reached its own removals: dockerd would keep
            // its networks' bridges on the host after it stops.
            const left = (await s.docker('ps', '-aq').catch(() => '')).split('\n').filter(Boolean);
            if (left.length) await s.docker('rm', '-f', ...left).catch(() => '');
            await s.docker('network', 'prune', '-f').catch(() => '');
            throw err;
          }
        }),
      );
      assert.deepEqual(ours, theirs, 'svcd and dockerd differ');
      return ours as Json;
    }

    test('docker network create --ipv6: dual-stack addresses, static --ip6, inspect, AAAA answers', async () => {
      const got = await same(async (s) => {
        await s.docker(
          'network',
          'create',
          '--ipv6',
          '--subnet',
          `${s.v4(1)}.0/24`,
          '--subnet',
          `${s.v6(1)}::/64`,
          '--ipam-opt',
          'x=y',
          '-o',
          'com.docker.network.driver.mtu=1400',
          'six net',
        );
        await s.docker('run', '-d', '--name', 'six-a', '--network', 'six net', 'busybox', 'sleep', '120');
        await s.docker(
          'run',
          '-d',
          '--name',
          'six-b',
          '--network',
          'six net',
          '--ip6',
          `${s.v6(1)}::66`,
          'busybox',
          'sleep',
          '120',
        );
        const net = JSON.parse(await s.docker('network', 'inspect', 'six net'))[0] as Json;
        const endpoint = async (c: string) =>
          pick(JSON.parse(await s.docker('inspect', c))[0].NetworkSettings.Networks['six net'], [
            'IPAMConfig',
            'Gateway',
            'IPAddress',
            'IPPrefixLen',
            'IPv6Gateway',
            'GlobalIPv6Address',
            'GlobalIPv6PrefixLen',
          ]);
        const looked = await s.docker(
          'exec',
          'six-a',
          'sh',
          '-c',
          'nslookup -type=aaaa six-b; ping -6 -c1 -W2 six-b >/dev/null && echo reached; ip -6 route | grep default',
        );
        const inside = await s.docker('exec', 'six-a', 'sh', '-c', 'ip -6 -o addr show eth0 scope global');
        const endpoints = { a: await endpoint('six-a'), b: await endpoint('six-b') };
        await s.docker('rm', '-f', 'six-a', 'six-b');
        await s.docker('network', 'rm', 'six net');
        return {
          ...endpoints,
          network: pick(net, ['Name', 'Driver', 'EnableIPv6', 'IPAM', 'Internal', 'Options']),
          members: Object.values(net.Containers as Json)
            .map((m: Json) => pick(m, ['Name', 'IPv4Address', 'IPv6Address']))
            .sort((a, b) => a.Name.localeCompare(b.Name)),
          answers: looked
            .split('\n')
            .filter((l) => /^Address: [0-9a-f:]+$/.test(l) || l === 'reached' || l.startsWith('default'))
            .map((l) => l.replace(/\s+metric.*/, '')),
          inside: /inet6 (\S+)/.exec(inside)?.[1] ?? inside,
        };
      });
      assert.deepEqual(got.network.IPAM, {
        Driver: 'default',
        Options: { x: 'y' },
        Config: [{ Subnet: 'V4-1.0/24' }, { Subnet: 'V6-1::/64' }],
      });
      assert.equal(got.network.EnableIPv6, true);
      assert.deepEqual(got.members, [
        { Name: 'six-a', IPv4Address: 'V4-1.2/24', IPv6Address: 'V6-1::2/64' },
        { Name: 'six-b', IPv4Address: 'V4-1.3/24', IPv6Address: 'V6-1::66/64' },
      ]);
      assert.deepEqual(got.b, {
        IPAMConfig: { IPv6Address: 'V6-1::66' },
        Gateway: 'V4-1.1',
        IPAddress: 'V4-1.3',
        IPPrefixLen: 24,
        IPv6Gateway: 'V6-1::1',
        GlobalIPv6Address: 'V6-1::66',
        GlobalIPv6PrefixLen: 64,
      });
      assert.deepEqual(got.answers, ['Address: V6-1::66', 'reached', 'default via V6-1::1 dev eth0']);
      assert.equal(got.inside, 'V6-1::2/64');
    });

    test('run --mac-address sets the interface; network connect --link gives the alias on that network', async () => {
      const got = await same(async (s) => {
        await s.docker('network', 'create', '--subnet', `${s.v4(2)}.0/24`, 'macnet');
        await s.docker('network', 'create', '--subnet', `${s.v4(3)}.0/24`, 'linknet');
        await s.docker20(
          'run',
          '-d',
          '--name',
          'mac-a',
          '--network',
          'macnet',
          '--mac-address',
          '02:42:0A:D6:00:99',
          'busybox',
          'sleep',
          '120',
        );
        await s.docker(
          'run',
          '-d',
          '--name',
          'link-target',
          '--network',
          'linknet',
          'busybox',
          'sleep',
          '120',
        );
        await s.docker('network', 'connect', '--link', 'link-target:store', 'linknet', 'mac-a');
        const c = JSON.parse(await s.docker('inspect', 'mac-a'))[0] as Json;
        const net = JSON.parse(await s.docker('network', 'inspect', 'macnet'))[0] as Json;
        const result = {
          config: c.Config.MacAddress,
          top: c.NetworkSettings.MacAddress,
          macnet: pick(c.NetworkSettings.Networks.macnet, ['MacAddress', 'Links']),
          linknet: pick(c.NetworkSettings.Networks.linknet, ['Links', 'DriverOpts']),
          member: (Object.values(net.Containers as Json)[0] as Json).MacAddress,
          iface: await s.docker('exec', 'mac-a', 'cat', '/sys/class/net/eth0/address'),
          store: await s.docker(
            'exec',
            'mac-a',
            'sh',
            '-c',
            'ping -c1 -W2 store | head -1; ping -c1 -W2 store >/dev/null && echo reached',
          ),
          // The link is the connecting container's: the target resolves no such name.
          reverse: await s.docker(
            'exec',
            'link-target',
            'sh',
            '-c',
            'ping -c1 -W1 store >/dev/null 2>&1 && echo found || echo not-found',
          ),
        };
        await s.docker('rm', '-f', 'mac-a', 'link-target');
        await s.docker('network', 'rm', 'macnet', 'linknet');
        return result;
      });
      assert.deepEqual(got, {
        config: '02:42:0A:D6:00:99',
        top: '',
        macnet: { MacAddress: '02:42:0a:d6:00:99', Links: null },
        linknet: { Links: ['link-target:store'], DriverOpts: {} },
        member: '02:42:0a:d6:00:99',
        iface: '02:42:0a:d6:00:99',
        store: 'PING store (V4-3.2): 56 data bytes\nreached',
        reverse: 'not-found',
      });
    });

    test(
      'docker-py: a dual-stack network, MAC address, static IPv6, links and driver options at create and connect',
      { skip: dockerPyMissing() },
      async () => {
        const got = await same(async (s) => {
          const { stdout } = await run(python, [dockerPyScript, s.socket(), 'busybox', 'networks', '1'], {
            env: { ...process.env, NET_V4: s.v4(4), NET_V6: s.v6(4) },
          });
          return (JSON.parse(stdout) as Json[])[0];
        });
        const endpoint = (ip: string, ip6: string, links: string[], at: string) => ({
          IPAMConfig: ip6.endsWith('::77') ? { IPv6Address: ip6 } : null,
          Links: links,
          DriverOpts: { at },
          IPAddress: ip,
          GlobalIPv6Address: ip6,
          GlobalIPv6PrefixLen: 64,
          IPv6Gateway: 'V6-4::1',
        });
        assert.deepEqual(got, {
          ipam: {
            Driver: 'default',
            Options: null,
            Config: [{ Subnet: 'V4-4.0/24' }, { Subnet: 'V6-4::/64' }],
          },
          enableIPv6: true,
          mac: ['02:42:0a:d6:00:51', '02:42:0a:d6:00:51'],
          linking: endpoint('V4-4.3', 'V6-4::3', ['pytarget:pal'], 'create'),
          late: endpoint('V4-4.4', 'V6-4::77', ['pytarget:buddy'], 'connect'),
          pal: ['PING pal (V4-4.2): 56 data bytes', 'PING pal (V6-4::2): 56 data bytes'],
          buddy: ['PING buddy (V4-4.2): 56 data bytes', 'PING buddy (V6-4::2): 56 data bytes'],
        });
      },
    );

    test('network names, Options and IPAM Options as dockerd keeps them; refusals of IPv6 networks', async () => {
      const got = await same(async (s) => {
        const api = s.api();
        const answer = async (method: string, path: string, body?: unknown) => {
          const res = await api.request(method, path, { body });
          return { status: res.status, body: res.status === 204 ? '' : res.json<Json>() };
        };
        const inspected = async (name: string) => {
          const n = (await answer('GET', `/v1.41/networks/${encodeURIComponent(name)}`)).body as Json;
          return pick(n, ['Name', 'EnableIPv6', 'IPAM', 'Options']);
        };
        const result = {
          spaced: (
            await answer('POST', '/v1.41/networks/create', {
              Name: 'my net 1',
              IPAM: { Config: [{ Subnet: `${s.v4(5)}.0/24` }] },
            })
          ).status,
          spacedView: await inspected('my net 1'),
          options: (
            await answer('POST', '/v1.41/networks/create', {
              Name: 'opts',
              Options: { 'com.docker.network.bridge.enable_icc': 'true', 'com.example.custom': '1' },
              IPAM: { Options: {}, Config: [{ Subnet: `${s.v4(6)}.0/24`, Gateway: `${s.v4(6)}.1` }] },
            })
          ).status,
          optionsView: await inspected('opts'),
          noV6Subnet: await answer('POST', '/v1.41/networks/create', { Name: 'nov6', EnableIPv6: true }),
          v6: (
            await answer('POST', '/v1.41/networks/create', {
              Name: 'v6only',
              EnableIPv6: true,
              IPAM: {
                // IPv6 given first: inspect lists IPv4 first all the same.
                Config: [
                  { Subnet: `${s.v6(7)}::/64`, Gateway: `${s.v6(7)}::fe`, IPRange: `${s.v6(7)}::100/120` },
                  { Subnet: `${s.v4(7)}.0/24` },
                ],
              },
            })
          ).status,
          v6View: await inspected('v6only'),
          overlap: await answer('POST', '/v1.41/networks/create', {
            Name: 'overlap6',
            EnableIPv6: true,
            IPAM: { Config: [{ Subnet: `${s.v6(7)}::/80` }] },
          }),
          badIp6: await answer('POST', '/v1.41/containers/create', {
            Image: 'busybox',
            HostConfig: { NetworkMode: 'v6only' },
            NetworkingConfig: { EndpointsConfig: { v6only: { IPAMConfig: { IPv6Address: 'zz' } } } },
          }),
        };
        for (const name of ['my net 1', 'opts', 'v6only'])
          await answer('DELETE', `/v1.41/networks/${encodeURIComponent(name)}`);
        return result;
      });
      assert.deepEqual(got.spacedView, {
        Name: 'my net 1',
        EnableIPv6: false,
        IPAM: { Driver: 'default', Options: null, Config: [{ Subnet: 'V4-5.0/24' }] },
        Options: {},
      });
      assert.deepEqual(got.optionsView.Options, {
        'com.docker.network.bridge.enable_icc': 'true',
        'com.example.custom': '1',
      });
      assert.deepEqual(got.optionsView.IPAM.Options, {});
      assert.deepEqual(got.noV6Subnet, {
        status: 404,
        body: {
          message:
            'could not find an available, non-overlapping IPv6 address pool among the defaults to assign to the network',
        },
      });
      assert.deepEqual(got.v6View.IPAM.Config[0], { Subnet: 'V4-7.0/24' });
      assert.deepEqual(got.v6View.IPAM.Config[1], {
        Subnet: 'V6-7::/64',
        IPRange: 'V6-7::100/120',
        Gateway: 'V6-7::fe',
      });
      assert.deepEqual(got.overlap, {
        status: 403,
        body: { message: 'Pool overlaps with other one on this address space' },
      });
      assert.deepEqual(got.badIp6, { status: 400, body: { message: 'invalid IPv6 address: zz' } });
    });

    test('DELETE /containers/{parent}/{alias}?link=1 removes a legacy link, as docker rm --link does', async () => {
      const got = await same(async (s) => {
        const api = s.api();
        const status = async (path: string) => {
          const res = await api.request('DELETE', path);
          return `${res.status} ${res.status === 204 ? '' : res.json<Json>().message}`;
        };
        await s.docker('run', '-d', '--name', 'rl-target', 'busybox', 'sleep', '120');
        await s.docker('create', '--name', 'rl-a', '--link', 'rl-target:db', 'busybox', 'true');
        await s.docker('create', '--name', 'rl-b', '--link', 'rl-target:db', 'busybox', 'true');
        const result = {
          nosuchAlias: await status('/v1.41/containers/rl-a/nosuch?link=1'),
          removed: await status('/v1.41/containers/rl-a/db?link=1'),
          again: await status('/v1.41/containers/rl-a/db?link=1'),
          notALink: await status('/v1.41/containers/rl-a/db'),
          links: await s.docker('inspect', '-f', '{{json .HostConfig.Links}}', 'rl-a'),
          cli: await s.docker('rm', '--link', '/rl-b/db'),
          cliLinks: await s.docker('inspect', '-f', '{{json .HostConfig.Links}}', 'rl-b'),
          kept: await s.docker('ps', '-a', '--filter', 'name=rl-', '--format', '{{.Names}}'),
        };
        await s.docker('rm', '-f', 'rl-a', 'rl-b', 'rl-target');
        return result;
      });
      assert.deepEqual(got, {
        nosuchAlias: '404 No such container: rl-a/nosuch',
        removed: '204 ',
        again: '404 No such container: rl-a/db',
        notALink: '404 No such container: rl-a/db',
        links: 'null',
        cli: '/rl-b/db',
        cliLinks: 'null',
        kept: got.kept,
      });
      assert.deepEqual(got.kept.split('\n').sort(), ['rl-a', 'rl-b', 'rl-target']);
    });

    test('svcd: EndpointConfig.MacAddress on create and on connect is applied to that interface', async () => {
      // Docker Engine 20.10 ignores these (newer engines apply them, as svcd does).
      const api = pair().svcd;
      await svcd.docker('network', 'create', '--subnet', `${svcd.v4(10)}.0/24`, 'epmac');
      await svcd.docker('network', 'create', '--subnet', `${svcd.v4(11)}.0/24`, 'epmac2');
      const created = await api.request('POST', '/v1.41/containers/create?name=epm', {
        body: {
          Image: 'busybox',
          Cmd: ['sleep', '120'],
          HostConfig: { NetworkMode: 'epmac' },
          NetworkingConfig: { EndpointsConfig: { epmac: { MacAddress: '02:42:0a:d6:08:08' } } },
        },
      });
      assert.equal(created.status, 201, created.text());
      await svcd.docker('start', 'epm');
      const connected = await api.request('POST', '/v1.41/networks/epmac2/connect', {
        body: { Container: 'epm', EndpointConfig: { MacAddress: '02:42:0a:d6:09:09' } },
      });
      assert.equal(connected.status, 200, connected.text());
      assert.equal(
        await svcd.docker('exec', 'epm', 'cat', '/sys/class/net/eth0/address', '/sys/class/net/eth1/address'),
        '02:42:0a:d6:08:08\n02:42:0a:d6:09:09',
      );
      assert.equal(
        await svcd.docker(
          'inspect',
          '-f',
          '{{.NetworkSettings.Networks.epmac.MacAddress}} {{.NetworkSettings.Networks.epmac2.MacAddress}}',
          'epm',
        ),
        '02:42:0a:d6:08:08 02:42:0a:d6:09:09',
      );
      const bad = await api.request('POST', '/v1.41/networks/epmac2/connect', {
        body: { Container: 'epm', EndpointConfig: { MacAddress: 'zz' } },
      });
      assert.equal(bad.status, 400);
      assert.match(bad.text(), /invalid MAC address: zz/);
      await svcd.docker('rm', '-f', 'epm');
      await svcd.docker('network', 'rm', 'epmac', 'epmac2');
    });

    test('svcd: a published port of a container on an IPv6 network gets ip6tables rules, removed with it', async () => {
      // dockerd 20.10 makes none (its ip6tables option is off by default and experimental): with
      // CNI's portmap the port reaches the container's IPv6 address too, and the rules go with it.
      await svcd.docker(
        'network',
        'create',
        '--ipv6',
        '--subnet',
        `${svcd.v4(12)}.0/24`,
        '--subnet',
        `${svcd.v6(12)}::/64`,
        'pub6',
      );
      const hostPort = await freePort();
      await svcd.docker(
        'run',
        '-d',
        '--name',
        'pub6c',
        '--network',
        'pub6',
        '-p',
        `${hostPort}:80`,
        'busybox',
        'sleep',
        '120',
      );
      const ip6 = await svcd.docker(
        'inspect',
        '-f',
        '{{.NetworkSettings.Networks.pub6.GlobalIPv6Address}}',
        'pub6c',
      );
      assert.equal(ip6, `${svcd.v6(12)}::2`);
      const nat6 = () => execFileSync('ip6tables', ['-w', '5', '-t', 'nat', '-S'], { encoding: 'utf8' });
      assert.match(nat6(), new RegExp(`--dport ${hostPort} .*--to-destination \\[${ip6}\\]:80`));
      await svcd.docker('rm', '-f', 'pub6c');
      assert.doesNotMatch(nat6(), new RegExp(`--dport ${hostPort} `));
      await svcd.docker('network', 'rm', 'pub6');
    });
  },
);
