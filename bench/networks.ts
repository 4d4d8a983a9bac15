// Networks, side by side with Docker Engine on its own bridge and iptables (bench/peers.sh gives
// the peer `svcpeer0`): container lifecycle on the default bridge and on a user network, TCP
// throughput from a container to a client on 127.0.0.1 through a published port (CNI portmap's
// DNAT for svcd, docker-proxy for dockerd) and to an address the bench adds to a veth of its own
// (DNAT for both), and network create+remove. The published-port rows read with curl, the same
// client for both engines: Node's http client in the bench process reaches about half of curl's
// rate on this path, so it measured itself rather than the path. Subnets are fixed ones in
// 10.213.0.0/16, apart from the tests'; the added address is in 198.18.0.0/15 (benchmarking),
// apart from theirs.
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { caller, importBusyboxAs, median, sideBySide, type Call } from './bench-engine';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const runs = 20;
const image = 'svc-bench-networks/busybox:latest';
const payloadMiB = 256;
const hostAddress = '198.18.78.1';
const execAsync = promisify(execFile);

interface Figures {
  bridge: number;
  userNetwork: number;
  throughput: number;
  throughputHostAddress: number;
  containerToContainer: number;
  createRemove: number;
}

async function lifecycle(call: Call, network: string): Promise<number> {
  const once = async () => {
    const t0 = process.hrtime.bigint();
    const body = { Image: image, Cmd: ['true'], HostConfig: { NetworkMode: network } };
    const { Id } = (await call('POST', '/containers/create', body)).json<{ Id: string }>();
    await call('POST', `/containers/${Id}/start`);
    await call('POST', `/containers/${Id}/wait`);
    await call('DELETE', `/containers/${Id}`);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  };
  await once();
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await once());
  return median(times);
}

const serveBigFile = [
  'sh',
  '-c',
  `mkdir /www && dd if=/dev/zero of=/www/big bs=1048576 count=${payloadMiB} 2>/dev/null && httpd -f -p 80 -h /www`,
];

/** Retries `once` until it succeeds (the server writes its file first), then the median of 5. */
async function medianOnceReady(once: () => Promise<number>): Promise<number> {
  for (let i = 0; ; i++) {
    try {
      await once();
      break;
    } catch (err) {
      if (i > 100) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const rates: number[] = [];
  for (let i = 0; i < 5; i++) rates.push(await once());
  return median(rates);
}

/** Fetches of the file per timing of the container-to-container row. */
const c2cFetches = 4;

/**
 * MB/s from one container's httpd to another's wget on the default bridge, timed inside the
 * client by busybox `time` (10 ms resolution): the file is fetched c2cFetches times a timing,
 * ~0.7 s at this machine's rate, where one fetch (~0.2 s) read ±5 % from the resolution alone.
 */
async function containerToContainer(call: Call): Promise<number> {
  const start = async (cmd: string[]) => {
    const { Id } = (await call('POST', '/containers/create', { Image: image, Cmd: cmd })).json<{
      Id: string;
    }>();
    await call('POST', `/containers/${Id}/start`);
    return Id;
  };
  const server = await start(serveBigFile);
  const client = await start(['sleep', '300']);
  try {
    const ip = (await call('GET', `/containers/${server}/json`)).json<{
      NetworkSettings: { IPAddress: string };
    }>().NetworkSettings.IPAddress;
    return await medianOnceReady(async () => {
      const fetches = `for i in $(seq ${c2cFetches}); do wget -q -O /dev/null http://${ip}/big || exit 1; done`;
      const cmd = ['sh', '-c', `time timeout 60 sh -c '${fetches}' 2>&1`];
      const exec = { Cmd: cmd, AttachStdout: true, AttachStderr: true, Tty: true };
      const { Id } = (await call('POST', `/containers/${client}/exec`, exec)).json<{ Id: string }>();
      const out = (await call('POST', `/exec/${Id}/start`, { Detach: false, Tty: true })).text();
      const m = /real\s+(\d+)m\s*([\d.]+)s/.exec(out);
      const { ExitCode } = (await call('GET', `/exec/${Id}/json`)).json<{ ExitCode: number }>();
      if (!m || ExitCode !== 0) throw new Error(`wget in a container: ${out}`);
      return (c2cFetches * payloadMiB * 1.048576) / (Number(m[1]) * 60 + Number(m[2]));
    });
  } finally {
    for (const id of [server, client])
      await call('DELETE', `/containers/${id}?force=1`).catch(() => undefined);
  }
}

/** MB/s of curl's GET of a 256 MiB file from busybox httpd in a container, through `port` on `host`. */
async function throughput(call: Call, host: string, port: number): Promise<number> {
  const hostIp = host === '127.0.0.1' ? host : '';
  const body = {
    Image: image,
    Cmd: serveBigFile,
    ExposedPorts: { '80/tcp': {} },
    HostConfig: { PortBindings: { '80/tcp': [{ HostIp: hostIp, HostPort: String(port) }] } },
  };
  const { Id } = (await call('POST', '/containers/create', body)).json<{ Id: string }>();
  try {
    await call('POST', `/containers/${Id}/start`);
    const get = async () => {
      const { stdout } = await execAsync('curl', [
        '-sS',
        '--max-time',
        '30',
        '-o',
        '/dev/null',
        '-w',
        '%{http_code} %{size_download} %{time_total}',
        `http://${host}:${port}/big`,
      ]);
      const [status, bytes, seconds] = stdout.trim().split(' ').map(Number);
      if (status !== 200 || bytes !== payloadMiB << 20) throw new Error(`GET: ${status}, ${bytes} bytes`);
      return bytes / 1e6 / seconds;
    };
    return await medianOnceReady(get);
  } finally {
    await call('DELETE', `/containers/${Id}?force=1`).catch(() => undefined);
  }
}

async function createRemove(call: Call, subnet: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const body = { Name: `svc-bench-net-${i}`, IPAM: { Config: [{ Subnet: subnet }] } };
    const { Id } = (await call('POST', '/networks/create', body)).json<{ Id: string }>();
    await call('DELETE', `/networks/${Id}`);
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return median(times);
}

async function measure(
  socket: string,
  subnets: { user: string; scratch: string },
  ports: [number, number],
): Promise<Figures> {
  await importBusyboxAs(socket, image);
  const call = caller(socket);
  const bridge = await lifecycle(call, 'bridge');
  const { Id } = (
    await call('POST', '/networks/create', {
      Name: 'svc-bench-user',
      IPAM: { Config: [{ Subnet: subnets.user }] },
    })
  ).json<{
    Id: string;
  }>();
  let userNetwork: number;
  try {
    userNetwork = await lifecycle(call, 'svc-bench-user');
  } finally {
    await call('DELETE', `/networks/${Id}`);
  }
  return {
    bridge,
    userNetwork,
    throughput: await throughput(call, '127.0.0.1', ports[0]),
    throughputHostAddress: await throughput(call, hostAddress, ports[1]),
    containerToContainer: await containerToContainer(call),
    createRemove: await createRemove(call, subnets.scratch),
  };
}

/** The host address the published-port row also reads from, on a veth (no dummy links here). */
function withHostAddress<T>(work: () => Promise<T>): Promise<T> {
  const link = `svcbn${process.pid % 100000}`;
  execFileSync('ip', ['link', 'add', link, 'type', 'veth', 'peer', 'name', `${link}p`]);
  const remove = () => execFileSync('ip', ['link', 'del', link]);
  try {
    execFileSync('ip', ['addr', 'add', `${hostAddress}/32`, 'dev', link]);
    execFileSync('ip', ['link', 'set', link, 'up']);
  } catch (err) {
    remove();
    throw err;
  }
  return work().finally(remove);
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  return withHostAddress(async () => {
    // Apart from each other's: the peer's subnets and ports stay its own.
    const { row } = await sideBySide(options, (socket, side) =>
      side === 'ours'
        ? measure(socket, { user: '10.213.52.0/24', scratch: '10.213.53.0/24' }, [18291, 18293])
        : measure(socket, { user: '10.213.55.0/24', scratch: '10.213.56.0/24' }, [18292, 18294]),
    );
    return [
      row(
        'create+start+wait+delete (true) on the default bridge, median',
        'ms',
        'bridge',
        false,
        '>= 2x dockerd',
      ),
      row('the same on a user network, median', 'ms', 'userNetwork', false, '>= 2x dockerd'),
      row(
        `TCP from a container to 127.0.0.1 through a published port, ${payloadMiB} MiB`,
        'MB/s',
        'throughput',
        true,
        '>= 2x docker-proxy',
      ),
      row(
        `TCP from a container to a host address through a published port, ${payloadMiB} MiB`,
        'MB/s',
        'throughputHostAddress',
        true,
        '>= 1.2x dockerd',
      ),
      row(
        `TCP container to container on the default bridge, ${c2cFetches} × ${payloadMiB} MiB`,
        'MB/s',
        'containerToContainer',
        true,
        '>= 1x dockerd',
      ),
      row('network create+remove, median', 'ms', 'createRemove', false, '< dockerd'),
    ];
  });
}

export const networksSuite: BenchSuite = { name: 'networks', run };
