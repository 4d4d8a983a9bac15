// A service on two overlay networks (its task joined to both, the service reached by its name
// on each), and UDP ports published in ingress and host mode answering on 127.0.0.1, with real
// task containers.
import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { NetworkResource } from '../../../api/network-types';
import type { SwarmService, SwarmTask } from '../../../api/swarm-types';
import { contains, parseIp, parseSubnet } from '../../../runtime/cni/ipv4';
import { inspect, run, useEngine } from '../../../testing/containers-fixture';
import { freePort } from '../../../testing/free-port';
import { claimSuiteSubnets } from '../../../testing/free-subnet';
import { poll } from '../../../testing/poll';
import {
  busyboxTask,
  createService,
  execIn,
  hostnameServer,
  httpFrom,
  initSwarm,
  json,
  running,
  tasksWhen,
} from '../../testing/swarm-fixture';
import { buildStaticC, gccMissing } from '../../../testing/static-c';

/** The answer to one datagram sent to 127.0.0.1:port, or undefined after a second without one. */
function udpExchange(port: number, text: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    const socket = createSocket('udp4');
    const done = (answer?: string) => {
      clearTimeout(timer);
      socket.close();
      resolve(answer);
    };
    const timer = setTimeout(() => done(), 1000);
    socket.on('message', (msg) => done(msg.toString()));
    socket.on('error', () => done());
    socket.send(text, port, '127.0.0.1');
  });
}

describe('service networks and UDP ports', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test(
    'a task on two overlay networks joins both; the service answers by its name on each',
    { timeout: 240_000 },
    async () => {
      const { svcd } = suite();
      await initSwarm(svcd);
      const subnets = claimSuiteSubnets();
      const networks: Record<string, NetworkResource> = {};
      for (const [name, n] of [
        ['blue', 1],
        ['green', 2],
      ] as const) {
        const { Id } = await json<{ Id: string }>(
          svcd,
          'POST',
          '/networks/create',
          {
            Name: name,
            Driver: 'overlay',
            Attachable: true,
            IPAM: { Config: [{ Subnet: subnets.subnet(n) }] },
          },
          201,
        );
        networks[name] = await json<NetworkResource>(svcd, 'GET', `/networks/${Id}`);
      }
      await createService(svcd, {
        Name: 'multi',
        TaskTemplate: {
          ...busyboxTask(hostnameServer),
          Networks: [{ Target: 'blue' }, { Target: 'green', Aliases: ['multi-green'] }],
        },
      });
      const [task] = running(
        await tasksWhen(svcd, 'multi', 'the task running', (t) => running(t).length === 1),
      );
      const container = await inspect(svcd, task.Status.ContainerStatus!.ContainerID);
      const hostname = container.Config.Hostname;
      const service = await json<SwarmService>(svcd, 'GET', '/services/multi');
      for (const name of ['blue', 'green']) {
        const net = networks[name];
        const subnet = parseSubnet(net.IPAM.Config![0].Subnet!);
        const ip = container.NetworkSettings.Networks?.[name]?.IPAddress ?? '';
        assert.ok(ip && contains(subnet, parseIp(ip)), `the task on ${name}: ${ip}`);
        const vip =
          service.Endpoint.VirtualIPs?.find((v) => v.NetworkID === net.Id)?.Addr.split('/')[0] ?? '';
        assert.ok(vip && contains(subnet, parseIp(vip)), `a VIP on ${name}: ${vip}`);

        const client = await run(svcd, { Cmd: ['sleep', '600'], HostConfig: { NetworkMode: name } });
        const lookup = await execIn(svcd, client, 'nslookup multi');
        assert.ok(lookup.split('Name:')[1]?.includes(vip), `multi is ${vip} on ${name}: ${lookup}`);
        const tasks = await execIn(svcd, client, 'nslookup tasks.multi');
        assert.ok(tasks.split('Name:')[1]?.includes(ip), `tasks.multi is ${ip} on ${name}: ${tasks}`);
        assert.equal(await httpFrom(svcd, client, 'multi'), hostname, `multi answers on ${name}`);
        if (name === 'green') {
          const alias = await execIn(svcd, client, 'nslookup multi-green');
          assert.ok(alias.split('Name:')[1]?.includes(vip), `the alias on green: ${alias}`);
        }
        await svcd.request('DELETE', `/containers/${client}?force=true`);
      }
      await svcd.request('DELETE', '/services/multi');
    },
  );

  describe('UDP', { skip: gccMissing() }, () => {
    let dir = '';
    before(() => {
      dir = mkdtempSync(join(tmpdir(), 'swarm-udp-echo-'));
      buildStaticC('daemon/server/testing/udp-echo.c', join(dir, 'udp-echo'));
    });
    after(() => rmSync(dir, { recursive: true, force: true }));

    test(
      'published UDP ports, ingress and host mode, answer on 127.0.0.1',
      { timeout: 240_000 },
      async () => {
        const { svcd } = suite();
        const echoTask = busyboxTask('exec /udp-echo 5353', {
          Mounts: [{ Type: 'bind', Source: join(dir, 'udp-echo'), Target: '/udp-echo', ReadOnly: true }],
        });
        const [ingressPort, hostPort] = [await freePort(), await freePort()];
        await createService(svcd, {
          Name: 'udp-ingress',
          TaskTemplate: echoTask,
          EndpointSpec: { Ports: [{ Protocol: 'udp', TargetPort: 5353, PublishedPort: ingressPort }] },
        });
        await createService(svcd, {
          Name: 'udp-host',
          TaskTemplate: echoTask,
          EndpointSpec: {
            Ports: [{ Protocol: 'udp', TargetPort: 5353, PublishedPort: hostPort, PublishMode: 'host' }],
          },
        });
        const hostnameOf = async (name: string) => {
          const [task] = running(
            await tasksWhen(svcd, name, `${name} running`, (t) => running(t).length === 1),
          );
          return {
            task,
            hostname: (await inspect(svcd, task.Status.ContainerStatus!.ContainerID)).Config.Hostname,
          };
        };
        for (const [name, port] of [
          ['udp-ingress', ingressPort],
          ['udp-host', hostPort],
        ] as const) {
          const { hostname } = await hostnameOf(name);
          // The first datagram may come before the task's server has bound its port.
          const answer = await poll(() => udpExchange(port, `ping ${name}`), {
            timeoutMs: 30_000,
            intervalMs: 200,
          });
          assert.equal(answer, `${hostname} ping ${name}`);
        }
        const { task } = await hostnameOf('udp-host');
        assert.deepEqual((task as SwarmTask).Status.PortStatus.Ports, [
          { Protocol: 'udp', TargetPort: 5353, PublishedPort: hostPort, PublishMode: 'host' },
        ]);
        const ingress = await json<SwarmService>(svcd, 'GET', '/services/udp-ingress');
        assert.deepEqual(ingress.Endpoint.Ports, [
          { Protocol: 'udp', TargetPort: 5353, PublishedPort: ingressPort, PublishMode: 'ingress' },
        ]);
      },
    );
  });
});
