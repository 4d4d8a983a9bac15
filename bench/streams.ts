// Streams through the Engine API: reading back 200,000 log lines, exec create+start of `true`,
// stats (stream=false and one-shot), and how soon /events reports a start; for svcd and, when
// given, Docker Engine with the same busybox root filesystem.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { busyboxRootfsTar } from '../daemon/testing/busybox-image';
import { engineRequest, type EngineResponse } from '../daemon/testing/engine-client';
import { runcStateDir } from '../daemon/testing/svcd-harness';
import { sideBySide } from './bench-engine';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const repo = 'svc-bench-streams/busybox';
const logLines = 200_000;
const execRuns = 40;
const statsRuns = 5;
const eventRuns = 10;

interface Figures {
  logsMBps: number;
  execMs: number;
  runcExecMs: number;
  /** The exec row less the bare runc exec: what the engine, containerd and the shim add. */
  engineShareMs: number;
  runcMachineMs: number;
  statsMs: number;
  oneShotMs: number;
  eventMs: number;
  startMs: number;
}

async function api(socket: string, method: string, path: string, body?: unknown): Promise<EngineResponse> {
  const opts =
    body === undefined
      ? {}
      : Buffer.isBuffer(body)
        ? { body, headers: { 'Content-Type': 'application/x-tar' } }
        : { body };
  const res = await engineRequest(socket, method, path, opts);
  if (res.status >= 400) throw new Error(`${method} ${path}: ${res.status} ${res.text().slice(0, 300)}`);
  return res;
}

const ms = (t0: bigint) => Number(process.hrtime.bigint() - t0) / 1e6;

function median(values: number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

async function container(socket: string, cmd: string[]): Promise<string> {
  const body = { Image: repo, Cmd: cmd, HostConfig: { NetworkMode: 'none' } };
  const id = (await api(socket, 'POST', '/containers/create', body)).json<{ Id: string }>().Id;
  await api(socket, 'POST', `/containers/${id}/start`);
  return id;
}

/** MB/s of log text (frames included) for GET /logs of 200,000 lines, best of three. */
async function logsRate(socket: string): Promise<number> {
  const id = await container(socket, [
    'sh',
    '-c',
    `yes 'a log line with some padding text in it' | head -n ${logLines}`,
  ]);
  await api(socket, 'POST', `/containers/${id}/wait`);
  let best = 0;
  for (let i = 0; i < 3; i++) {
    const t0 = process.hrtime.bigint();
    const res = await api(socket, 'GET', `/containers/${id}/logs?stdout=1`);
    const rate = res.body.length / 1e6 / (ms(t0) / 1000);
    if (res.body.length < logLines * 40) throw new Error(`logs: only ${res.body.length} bytes`);
    best = Math.max(best, rate);
  }
  await api(socket, 'DELETE', `/containers/${id}?force=1`);
  return best;
}

/** Median ms of exec create + attached start of `true` until its stream ends. */
async function execLatency(socket: string, id: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i <= execRuns; i++) {
    const t0 = process.hrtime.bigint();
    const body = { Cmd: ['true'], AttachStdout: true, AttachStderr: true };
    const exec = (await api(socket, 'POST', `/containers/${id}/exec`, body)).json<{ Id: string }>().Id;
    await api(socket, 'POST', `/exec/${exec}/start`, { Detach: false, Tty: false });
    if (i > 0) times.push(ms(t0));
  }
  return median(times);
}

/**
 * The runc state directory of a container: for ours the harness svcd's own (runcStateDir, under
 * the data root beside its socket); for the peer containerd's or Docker's default, or the bench
 * peer's layout (peers.sh). Not found is an error: the rows would otherwise read NaN.
 */
function runcRootOf(socket: string, id: string, side: 'ours' | 'theirs'): string {
  const roots =
    side === 'ours'
      ? [runcStateDir(join(dirname(socket), 'data'))]
      : ['/run/containerd/runc', '/run/docker/runtime-runc', join(dirname(socket), 'exec/runtime-runc')]
          .filter((base) => existsSync(base))
          .flatMap((base) => readdirSync(base).map((ns) => join(base, ns)));
  const root = roots.find((r) => existsSync(join(r, id, 'state.json')));
  if (!root) throw new Error(`no runc state of container ${id} in ${roots.join(', ') || 'any runc root'}`);
  return root;
}

/**
 * Milliseconds of each of `runs` bare `runc exec`s of `true` in the container, run one after
 * another by a bash loop: a small process forks runc cheaply, as the shim does, where a spawn
 * from node (a large process) adds several ms of its own and made this floor read high.
 */
async function runcExecTimes(root: string, id: string, runs: number): Promise<number[]> {
  const script = `for ((i = 0; i < ${runs}; i++)); do s=$EPOCHREALTIME; runc --root "$1" exec "$2" true || exit 1; echo "$s $EPOCHREALTIME"; done`;
  const { stdout } = await promisify(execFile)('bash', ['-c', script, 'bash', root, id]);
  return stdout
    .trim()
    .split('\n')
    .map((line) => {
      const [from, to] = line.split(' ').map(Number);
      return (to - from) * 1000;
    });
}

/**
 * Median ms of a bare `runc exec` of `true` in the same container: the floor every engine on
 * runc stands on (containerd, the shim and the engine come on top).
 */
async function runcExecLatency(root: string, id: string): Promise<number> {
  return median((await runcExecTimes(root, id, execRuns + 1)).slice(1));
}

/**
 * Wall ms per bare `runc exec` while two run at a time, one per core: the least time of the
 * machine one exec costs, so no design that runs one `runc exec` per exec (pooled, pre-started
 * or pipelined) can answer execs back to back faster than this.
 */
async function runcMachineTime(root: string, id: string): Promise<number> {
  await runcExecTimes(root, id, 1);
  const t0 = process.hrtime.bigint();
  await Promise.all([runcExecTimes(root, id, execRuns / 2), runcExecTimes(root, id, execRuns / 2)]);
  return ms(t0) / execRuns;
}

async function statsLatency(socket: string, id: string, query: string): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < statsRuns; i++) {
    const t0 = process.hrtime.bigint();
    await api(socket, 'GET', `/containers/${id}/stats?${query}`);
    times.push(ms(t0));
  }
  return median(times);
}

/** Waits for the first line of a streaming GET; returns a function giving the time it came. */
function firstLine(
  socket: string,
  path: string,
): { ready: Promise<void>; arrived: Promise<bigint>; stop: () => void } {
  let ready!: () => void;
  let arrived!: (t: bigint) => void;
  const result = {
    ready: new Promise<void>((r) => (ready = r)),
    arrived: new Promise<bigint>((r) => (arrived = r)),
    stop: () => req.destroy(),
  };
  const req = request({ socketPath: socket, path }, (res) => {
    ready();
    res.on('data', () => arrived(process.hrtime.bigint()));
  });
  req.on('error', () => undefined);
  req.end();
  return result;
}

/** Median ms from asking for a start to the `start` event, and to the start's own answer. */
async function eventLatency(socket: string): Promise<{ event: number; start: number }> {
  const events: number[] = [];
  const starts: number[] = [];
  for (let i = 0; i < eventRuns; i++) {
    const body = { Image: repo, Cmd: ['true'], HostConfig: { NetworkMode: 'none' } };
    const id = (await api(socket, 'POST', '/containers/create', body)).json<{ Id: string }>().Id;
    const filters = encodeURIComponent(JSON.stringify({ event: ['start'], container: [id] }));
    const sub = firstLine(socket, `/events?filters=${filters}`);
    await sub.ready;
    const t0 = process.hrtime.bigint();
    await api(socket, 'POST', `/containers/${id}/start`);
    starts.push(ms(t0));
    events.push(Number((await sub.arrived) - t0) / 1e6);
    sub.stop();
    await api(socket, 'DELETE', `/containers/${id}?force=1`);
  }
  return { event: median(events), start: median(starts) };
}

async function importImage(socket: string): Promise<void> {
  const query = new URLSearchParams({ fromSrc: '-', repo, tag: 'latest', changes: 'ENV PATH=/bin' });
  await api(socket, 'POST', `/images/create?${query}`, await busyboxRootfsTar());
}

/** The exec row's figure alone, in a container of its own (the rootless suite). */
export async function execOf(socket: string): Promise<number> {
  await importImage(socket);
  const id = await container(socket, ['sleep', '600']);
  try {
    return await execLatency(socket, id);
  } finally {
    await api(socket, 'DELETE', `/containers/${id}?force=1`).catch(() => undefined);
  }
}

async function measure(socket: string, side: 'ours' | 'theirs'): Promise<Figures> {
  await importImage(socket);
  const logsMBps = await logsRate(socket);
  const id = await container(socket, ['sleep', '600']);
  try {
    const execMs = await execLatency(socket, id);
    const root = runcRootOf(socket, id, side);
    const runcExecMs = await runcExecLatency(root, id);
    const runcMachineMs = await runcMachineTime(root, id);
    const statsMs = await statsLatency(socket, id, 'stream=false');
    const oneShotMs = await statsLatency(socket, id, 'stream=false&one-shot=true');
    const { event: eventMs, start: startMs } = await eventLatency(socket);
    const engineShareMs = execMs - runcExecMs;
    return {
      logsMBps,
      execMs,
      runcExecMs,
      engineShareMs,
      runcMachineMs,
      statsMs,
      oneShotMs,
      eventMs,
      startMs,
    };
  } finally {
    await api(socket, 'DELETE', `/containers/${id}?force=1`).catch(() => undefined);
  }
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const { row, theirs } = await sideBySide(options, measure);
  return [
    row(`GET /logs of ${logLines} lines`, 'MB/s', 'logsMBps', true, '>= 3x dockerd'),
    row('exec create+start of true, median', 'ms', 'execMs', false, '>= 1.2x dockerd'),
    row(
      'bare runc exec of true in that container, median',
      'ms',
      'runcExecMs',
      false,
      'floor under the exec row',
    ),
    row(
      "exec's share above the bare runc exec (engine, containerd, shim)",
      'ms',
      'engineShareMs',
      false,
      '<= 3 ms',
    ),
    row(
      'bare runc exec, two at a time: wall ms per exec',
      'ms',
      'runcMachineMs',
      false,
      theirs
        ? `floor of any runc-based exec; dockerd's exec / 1.2 is ${(theirs.execMs / 1.2).toFixed(1)}`
        : 'floor of any runc-based exec',
    ),
    row('stats stream=false, median', 'ms', 'statsMs', false, 'as dockerd or faster'),
    row('stats one-shot, median', 'ms', 'oneShotMs', false, '<= 0.1x dockerd'),
    row('start request to its start event, median', 'ms', 'eventMs', false, '<= the start itself'),
    row('start request answered, median', 'ms', 'startMs', false, 'reference for the event row'),
  ];
}

export const streamsSuite: BenchSuite = { name: 'streams', run };
