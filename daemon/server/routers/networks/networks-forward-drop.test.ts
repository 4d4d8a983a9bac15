// svcd on a host whose FORWARD policy is DROP, as dockerd leaves it once it has turned IP
// forwarding on (and as host firewalls do): with br_netfilter, bridged traffic passes FORWARD
// too, so without svcd's own FORWARD rules its containers reach nothing. svcd runs in a network
// namespace of the test's own, with a second one ("outside", reached through a veth pair) as the
// rest of the network; all traffic stays between the namespaces the test made.
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { importBusybox } from '../../../testing/busybox-image';
import { expectStatus, inspect, run } from '../../../testing/containers-fixture';
import { webCommand } from '../../../testing/host-http';
import { pollUntil } from '../../../testing/poll';

const sh = promisify(execFile);
const tag = randomBytes(3).toString('hex');
const hostNs = `svcfwh${tag}`;
const outsideNs = `svcfwo${tag}`;
// The link between the two namespaces: routed nowhere but inside them.
const hostSide = '198.18.7.1';
const outsideSide = '198.18.7.2';

const inNs = (ns: string, ...cmd: string[]) => sh('ip', ['netns', 'exec', ns, ...cmd], { encoding: 'utf8' });

/** The body a GET from `ns` to `url` answers with, '' when nothing answers within 5 s. */
async function fetchFrom(ns: string, url: string): Promise<string> {
  const got = await inNs(ns, 'curl', '-sS', '--max-time', '5', url).catch(() => ({ stdout: '' }));
  return got.stdout.trim();
}

/** What `timeout 5 wget` prints in container `id` for `url` ('' when nothing answered). */
async function wgetIn(svcd: SvcdInstance, id: string, url: string): Promise<string> {
  const exec = expectStatus(
    await svcd.request('POST', `/containers/${id}/exec`, {
      body: { Cmd: ['sh', '-c', `timeout 5 wget -q -O- ${url} 2>/dev/null`], AttachStdout: true, Tty: true },
    }),
    201,
  ).json<{ Id: string }>().Id;
  const res = await svcd.request('POST', `/exec/${exec}/start`, { body: { Detach: false, Tty: true } });
  return res.text().trim();
}

describe('container traffic where FORWARD drops by default', () => {
  let svcd: SvcdInstance;
  let outsideWeb: ChildProcess | undefined;
  let www = '';
  before(async () => {
    await sh('ip', ['netns', 'add', hostNs]);
    await sh('ip', ['netns', 'add', outsideNs]);
    await sh('ip', ['-n', hostNs, 'link', 'set', 'lo', 'up']);
    await sh('ip', ['-n', outsideNs, 'link', 'set', 'lo', 'up']);
    await sh('ip', [
      '-n',
      hostNs,
      'link',
      'add',
      'up0',
      'type',
      'veth',
      'peer',
      'name',
      'up1',
      'netns',
      outsideNs,
    ]);
    await sh('ip', ['-n', hostNs, 'addr', 'add', `${hostSide}/30`, 'dev', 'up0']);
    await sh('ip', ['-n', outsideNs, 'addr', 'add', `${outsideSide}/30`, 'dev', 'up1']);
    await sh('ip', ['-n', hostNs, 'link', 'set', 'up0', 'up']);
    await sh('ip', ['-n', outsideNs, 'link', 'set', 'up1', 'up']);
    await inNs(hostNs, 'sysctl', '-qw', 'net.ipv4.ip_forward=1');
    await inNs(hostNs, 'iptables', '-w', '5', '-P', 'FORWARD', 'DROP');
    www = await mkdtemp(join(tmpdir(), 'svc-fw-www-'));
    await writeFile(join(www, 'index.html'), 'from-outside\n');
    outsideWeb = spawn(
      'ip',
      ['netns', 'exec', outsideNs, 'busybox', 'httpd', '-f', '-p', '8080', '-h', www],
      {
        stdio: 'ignore',
      },
    );
    svcd = await startSvcd({ netns: hostNs });
    await importBusybox(svcd);
  });
  after(async () => {
    await destroySvcd(svcd);
    outsideWeb?.kill();
    if (www) await rm(www, { recursive: true, force: true });
    for (const ns of [outsideNs, hostNs]) await sh('ip', ['netns', 'del', ns]).catch(() => undefined);
  });

  test('on the default bridge: a container reaches another, the outside, and a published port answers the outside', async () => {
    const web = await run(svcd, {
      Cmd: ['sh', '-c', webCommand('from-container')],
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { PortBindings: { '80/tcp': [{ HostPort: '18080' }] } },
    });
    const client = await run(svcd, { Cmd: ['sleep', '300'] });
    const webIp = (await inspect(svcd, web)).NetworkSettings.IPAddress;
    assert.equal(
      await pollUntil(
        'the web container',
        async () => (await wgetIn(svcd, client, `http://${webIp}/`)) || undefined,
      ),
      'from-container',
    );
    assert.equal(await wgetIn(svcd, client, `http://${outsideSide}:8080/`), 'from-outside');
    assert.equal(await fetchFrom(outsideNs, `http://${hostSide}:18080/`), 'from-container');
    const rules = (await inNs(hostNs, 'iptables', '-w', '5', '-S', 'FORWARD')).stdout;
    assert.equal(rules.match(/svcd forward /g)?.length, 3, rules);
    for (const id of [web, client])
      expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
  });

  test('a user network as the bridge; with inter-container traffic off its members still reach the outside; removal takes its rules', async () => {
    const make = async (name: string, options: Record<string, string> = {}) => {
      const res = await svcd.request('POST', '/networks/create', { body: { Name: name, Options: options } });
      return expectStatus(res, 201, 'network create').json<{ Id: string }>().Id;
    };
    const open = await make('open');
    const closed = await make('closed', { 'com.docker.network.bridge.enable_icc': 'false' });
    const ids: string[] = [];
    const on = async (network: string, cmd: string[]) => {
      const id = await run(svcd, { Cmd: cmd, HostConfig: { NetworkMode: network } });
      ids.push(id);
      return id;
    };
    const openWeb = await on('open', ['sh', '-c', webCommand('open-web')]);
    const openClient = await on('open', ['sleep', '300']);
    assert.equal(
      await pollUntil(
        'open-web by name',
        async () =>
          (await wgetIn(svcd, openClient, 'http://' + (await nameOf(svcd, openWeb)) + '/')) || undefined,
      ),
      'open-web',
    );
    const closedWeb = await on('closed', ['sh', '-c', webCommand('closed-web')]);
    const closedClient = await on('closed', ['sleep', '300']);
    const closedIp = Object.values((await inspect(svcd, closedWeb)).NetworkSettings.Networks)[0].IPAddress;
    assert.equal(await wgetIn(svcd, closedClient, `http://${outsideSide}:8080/`), 'from-outside');
    // It serves (the host reaches it through the bridge's own address, not FORWARD): the silence
    // below is the rule's, not a server still starting.
    assert.equal(
      await pollUntil(
        'closed-web from the host',
        async () => (await fetchFrom(hostNs, `http://${closedIp}/`)) || undefined,
      ),
      'closed-web',
    );
    assert.equal(
      await wgetIn(svcd, closedClient, `http://${closedIp}/`),
      '',
      'inter-container traffic is off',
    );
    for (const id of ids) expectStatus(await svcd.request('DELETE', `/containers/${id}?force=1`), 204);
    for (const id of [open, closed]) expectStatus(await svcd.request('DELETE', `/networks/${id}`), 204);
    const rules = (await inNs(hostNs, 'iptables', '-w', '5', '-S', 'FORWARD')).stdout;
    assert.equal(rules.match(/svcd forward /g)?.length, 3, `only the default bridge's are left:\n${rules}`);
    assert.doesNotMatch(rules, /svcd no icc /, 'the isolation rule went with its network');
  });
});

/** The container's name without its slash, which its network's name server answers for. */
async function nameOf(svcd: SvcdInstance, id: string): Promise<string> {
  return (await inspect(svcd, id)).Name.replace(/^\//, '');
}
