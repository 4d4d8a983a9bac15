// The default bridge on a host where another engine was or is: a bridge device an earlier svcd
// left is adopted with its address, and two engines started side by side never end up on one
// subnet. Traffic goes only to 127.0.0.1 and to the test's own containers.
import assert from 'node:assert/strict';
import { rename } from 'node:fs/promises';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import {
  cleanupUnder,
  destroySvcd,
  removeRulesMarked,
  startSvcd,
  type SvcdInstance,
} from '../../../testing/svcd-harness';
import { importBusybox } from '../../../testing/busybox-image';
import { create, expectStatus, run } from '../../../testing/containers-fixture';
import { served, webCommand } from '../../../testing/host-http';
import { contains, parseIp, parseSubnet, overlaps } from '../../../runtime/cni/ipv4';
import type { NetworkResource } from '../../../api/network-types';
import type { ContainerInspect } from '../../../api/container-summary-types';

async function engine(args: string[] = []): Promise<SvcdInstance> {
  const svcd = await startSvcd({ args });
  await importBusybox(svcd);
  return svcd;
}

async function bridgeSubnet(svcd: SvcdInstance): Promise<string> {
  const net = expectStatus(await svcd.request('GET', '/networks/bridge'), 200).json<NetworkResource>();
  return net.IPAM.Config![0].Subnet!;
}

async function addressOf(svcd: SvcdInstance, id: string): Promise<string> {
  const c = expectStatus(await svcd.request('GET', `/containers/${id}/json`), 200).json<ContainerInspect>();
  return c.NetworkSettings.IPAddress;
}

describe('the default bridge beside other engines', () => {
  const engines: SvcdInstance[] = [];
  after(async () => {
    for (const e of engines.reverse()) await destroySvcd(e);
  });
  const started = async (args: string[] = []) => {
    const svcd = await engine(args);
    engines.push(svcd);
    return svcd;
  };

  test('a fresh data root adopts the default bridge an earlier svcd left, and its containers start', async () => {
    const earlier = await startSvcd();
    const bridge = earlier.bridge;
    let left: string;
    let earlierNetwork: string | undefined;
    try {
      await importBusybox(earlier);
      earlierNetwork = expectStatus(
        await earlier.request('GET', '/networks/bridge'),
        200,
      ).json<NetworkResource>().Id;
      const id = await run(earlier, { Cmd: ['sleep', '300'] });
      left = await bridgeSubnet(earlier);
      expectStatus(await earlier.request('DELETE', `/containers/${id}?force=1`), 204);
      await earlier.stop();
    } finally {
      // Its data root goes, its bridge stays (the cleanup would remove the bridges it names).
      await rename(join(earlier.dataRoot, 'networks'), join(earlier.dir, 'networks-kept')).catch(
        () => undefined,
      );
      await cleanupUnder(earlier.dir);
    }
    try {
      const svcd = await started(['--bridge', bridge]);
      assert.equal(await bridgeSubnet(svcd), left, 'the bridge keeps its subnet');
      const id = await run(svcd, { Cmd: ['sleep', '300'] });
      assert.ok(contains(parseSubnet(left), parseIp(await addressOf(svcd, id))));
    } finally {
      // The earlier network's masquerade rule names its ID, which no cleanup knows any more.
      if (earlierNetwork) removeRulesMarked([earlierNetwork]);
    }
  });

  test('two engines started together: the second to make its bridge moves to a free subnet', async () => {
    // Both choose at start, before either has a bridge: the same subnet is free to both then.
    const [first, second] = await Promise.all([started(), started()]);
    const a = await run(first, { Cmd: ['sleep', '300'] });
    const b = await run(second, {
      Cmd: ['sh', '-c', webCommand('from-second')],
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } },
    });
    const [one, two] = [await bridgeSubnet(first), await bridgeSubnet(second)];
    assert.ok(!overlaps(parseSubnet(one), parseSubnet(two)), `${one} and ${two} overlap`);
    assert.ok(contains(parseSubnet(one), parseIp(await addressOf(first, a))));
    assert.ok(contains(parseSubnet(two), parseIp(await addressOf(second, b))));
    const port = expectStatus(
      await second.request('GET', `/containers/${b}/json`),
      200,
    ).json<ContainerInspect>().NetworkSettings.Ports['80/tcp']![0].HostPort;
    assert.equal(await served('127.0.0.1', port), 'from-second');
  });

  test('two containers started at once on a new network both start, on one name server', async () => {
    const svcd = engines[engines.length - 1];
    expectStatus(await svcd.request('POST', '/networks/create', { body: { Name: 'at-once' } }), 201);
    const ids = await Promise.all(
      ['one', 'two'].map((name) =>
        create(svcd, { Cmd: ['sleep', '300'], HostConfig: { NetworkMode: 'at-once' } }, name),
      ),
    );
    const starts = await Promise.all(ids.map((id) => svcd.request('POST', `/containers/${id}/start`)));
    for (const res of starts) expectStatus(res, 204, 'start');
    const looked = await svcd.request('POST', `/containers/${ids[0]}/exec`, {
      body: { Cmd: ['nslookup', 'two'], AttachStdout: true },
    });
    const exec = expectStatus(looked, 201).json<{ Id: string }>().Id;
    const out = await svcd.request('POST', `/exec/${exec}/start`, { body: { Detach: false, Tty: true } });
    assert.match(out.text(), new RegExp(await addressOf(svcd, ids[1])));
  });

  test("a given subnet the host now routes through another engine's bridge is refused at start, clearly", async () => {
    const taken = await bridgeSubnet(engines[engines.length - 2]);
    const svcd = await started();
    // Free when the network is made: the other engine's bridge comes later, as on a real host.
    await svcd.request('POST', '/networks/create', {
      body: { Name: 'clash', IPAM: { Config: [{ Subnet: taken }] } },
    });
    const id = (
      await svcd.request('POST', '/containers/create', {
        body: { Image: 'busybox', Cmd: ['true'], HostConfig: { NetworkMode: 'clash' } },
      })
    ).json<{ Id: string }>().Id;
    const start = await svcd.request('POST', `/containers/${id}/start`);
    assert.equal(start.status, 403, start.text());
    assert.match(start.json<{ message: string }>().message, new RegExp(`${taken}.*the host now routes`));
  });
});
