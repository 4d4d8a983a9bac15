// A service's endpoint on its overlay network, from another container there: in vip mode its
// name is one virtual address (shown in Endpoint.VirtualIPs) that reaches its tasks; in dnsrr
// mode its name is every task's address; `tasks.<service>` is every task's in both.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { SwarmService } from '../../../api/swarm-types';
import type { NetworkResource } from '../../../api/network-types';
import { contains, parseIp, parseSubnet } from '../../../runtime/cni/ipv4';
import { expectStatus, inspect, run, useEngine } from '../../../testing/containers-fixture';
import { pollUntil } from '../../../testing/poll';
import {
  busyboxTask,
  execIn,
  hostnameServer,
  httpFrom,
  json,
  running,
  tasksWhen,
} from '../../testing/swarm-fixture';

const exec = promisify(execFile);

/** The addresses busybox nslookup printed for the name (after the server's own lines). */
const resolved = (out: string) =>
  [
    ...out
      .split('Name:')
      .slice(1)
      .join('\n')
      .matchAll(/Address(?: \d+)?:\s*([0-9.]+)/g),
  ]
    .map((m) => m[1])
    .sort();

describe('service endpoints on an overlay network', () => {
  after(() => suite().svcd.request('POST', '/swarm/leave?force=true'));
  const suite = useEngine();

  test(
    'vip: one virtual address reaching the tasks; dnsrr: every task; tasks.<service> both',
    { timeout: 300_000 },
    async () => {
      const { svcd } = suite();
      await json(svcd, 'POST', '/swarm/init', { ListenAddr: '127.0.0.1:2377', AdvertiseAddr: '127.0.0.1' });
      const { Id: netId } = await json<{ Id: string }>(
        svcd,
        'POST',
        '/networks/create',
        { Name: 'front', Driver: 'overlay', Attachable: true },
        201,
      );
      const network = await json<NetworkResource>(svcd, 'GET', `/networks/${netId}`);
      const subnet = network.IPAM.Config![0].Subnet!;
      await json(
        svcd,
        'POST',
        '/services/create',
        {
          Name: 'api',
          TaskTemplate: {
            ...busyboxTask(hostnameServer),
            Networks: [{ Target: 'front', Aliases: ['backend'] }],
          },
          Mode: { Replicated: { Replicas: 2 } },
        },
        201,
      );
      await json(
        svcd,
        'POST',
        '/services/create',
        {
          Name: 'rr',
          TaskTemplate: { ...busyboxTask('sleep 3600'), Networks: [{ Target: netId }] },
          Mode: { Replicated: { Replicas: 2 } },
          EndpointSpec: { Mode: 'dnsrr' },
        },
        201,
      );
      const apiTasks = running(await tasksWhen(svcd, 'api', 'two api tasks', (t) => running(t).length === 2));
      const rrTasks = running(await tasksWhen(svcd, 'rr', 'two rr tasks', (t) => running(t).length === 2));

      const api = await json<SwarmService>(svcd, 'GET', '/services/api');
      assert.equal(api.Endpoint.VirtualIPs?.length, 1);
      const [vip] = api.Endpoint.VirtualIPs!;
      assert.equal(vip.NetworkID, netId);
      const [vipIp, prefix] = vip.Addr.split('/');
      assert.equal(Number(prefix), parseSubnet(subnet).prefix);
      assert.ok(contains(parseSubnet(subnet), parseIp(vipIp)), `${vip.Addr} in ${subnet}`);
      const rr = await json<SwarmService>(svcd, 'GET', '/services/rr');
      assert.equal(rr.Endpoint.VirtualIPs, undefined);
      assert.equal(rr.Spec.EndpointSpec?.Mode, 'dnsrr');

      const addressOf = async (containerId: string) =>
        (await inspect(svcd, containerId)).NetworkSettings.Networks?.front?.IPAddress ?? '';
      const apiIps = (
        await Promise.all(apiTasks.map((t) => addressOf(t.Status.ContainerStatus!.ContainerID)))
      ).sort();
      const rrIps = (
        await Promise.all(rrTasks.map((t) => addressOf(t.Status.ContainerStatus!.ContainerID)))
      ).sort();
      assert.ok(!apiIps.includes(vipIp));

      const client = await run(svcd, { Cmd: ['sleep', '600'], HostConfig: { NetworkMode: 'front' } });
      const lookup = async (name: string) => resolved(await execIn(svcd, client, `nslookup ${name}`));
      assert.deepEqual(await lookup('api'), [vipIp]);
      assert.deepEqual(await lookup('backend'), [vipIp]);
      assert.deepEqual(await lookup('tasks.api'), apiIps);
      assert.deepEqual(await lookup('rr'), rrIps);
      assert.deepEqual(await lookup('tasks.rr'), rrIps);

      // Connections to the VIP are spread over both tasks (random: 24 tries miss one with
      // a chance of 2^-23).
      const hostnames = new Set(
        await Promise.all(
          apiTasks.map(
            async (t) => (await inspect(svcd, t.Status.ContainerStatus!.ContainerID)).Config.Hostname,
          ),
        ),
      );
      const answers = new Set<string>();
      for (let i = 0; i < 24 && answers.size < 2; i++) {
        answers.add(await httpFrom(svcd, client, 'api'));
      }
      assert.deepEqual([...answers].sort(), [...hostnames].sort());
      // A task reaches its own service through the VIP too.
      const own = await httpFrom(svcd, apiTasks[0].Status.ContainerStatus!.ContainerID, vipIp);
      assert.ok(hostnames.has(own), own);

      // Removed: the VIP's rules and address go with the service.
      expectStatus(await svcd.request('DELETE', '/services/api'), 200);
      await pollUntil('the VIP unrouted', async () => {
        const { stdout: nat } = await exec('iptables', ['-w', '5', '-t', 'nat', '-S']);
        const { stdout: addrs } = await exec('ip', ['-o', 'addr', 'show']);
        return nat.includes(`${vipIp}/32`) || addrs.includes(`${vipIp}/32`) ? undefined : true;
      });
      expectStatus(await svcd.request('DELETE', `/containers/${client}?force=true`), 204);
    },
  );
});
