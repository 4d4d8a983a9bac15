import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Supervisor } from './supervisor';
import { type ServiceSpec } from './managed-service';
import { type ServiceState, type ServiceStatus } from './service-state';
import { processExists } from '../../../daemon/lib/process-exists';

// A tiny server program: listens on the unix socket given, answers /_ping, prints a ready line;
// on SIGTERM prints "bye" and exits unless told to ignore it.
const SERVER = `
const http = require('node:http');
const [socket, mode] = process.argv.slice(2);
if (mode === 'fail') { console.error('boom: cannot open data root'); process.exit(3); }
// Dies of an uncaught error after a Node warning: its stack and Node's trailer follow the reason.
if (mode === 'throw') { process.emitWarning('a test warning'); setTimeout(() => { throw new Error('cannot bind the socket'); }, 50); return; }
if (mode === 'ignore-term') process.on('SIGTERM', () => console.log('ignoring SIGTERM'));
else if (mode === 'slow-term') process.on('SIGTERM', () => { console.log('term'); setTimeout(() => process.exit(0), 300); });
else process.on('SIGTERM', () => { console.log('bye'); process.exit(0); });
try { require('node:fs').unlinkSync(socket); } catch {}
http.createServer((req, res) => res.end('OK')).listen(socket, () => console.log('ready on ' + socket));
`;

let dir: string;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'supervisor-test-'));
  writeFileSync(join(dir, 'server.js'), SERVER);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function spec(name: string, mode = 'normal', extra: Partial<ServiceSpec> = {}): ServiceSpec {
  const socket = join(dir, `${name}.sock`);
  return {
    name,
    command: process.execPath,
    args: [join(dir, 'server.js'), socket, mode],
    health: { kind: 'unix', socketPath: socket, path: '/_ping' },
    logFile: join(dir, 'logs', `${name}.log`),
    adopt: false,
    ...extra,
  };
}

const fastPolicy = {
  initialBackoffMs: 20,
  maxBackoffMs: 100,
  fastFailureMs: 2_000,
  maxFastFailures: 3,
  readyTimeoutMs: 5_000,
  stopTimeoutMs: 500,
};

function waitFor(
  sup: Supervisor,
  name: string,
  status: ServiceStatus,
  timeoutMs = 10_000,
): Promise<ServiceState> {
  const now = sup.state(name);
  if (now?.status === status) return Promise.resolve(now);
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} never reached ${status}`)), timeoutMs);
    const on = (s: ServiceState) => {
      if (s.name !== name || s.status !== status) return;
      clearTimeout(timer);
      sup.off('state', on);
      resolve(s);
    };
    sup.on('state', on);
  });
}

describe('Supervisor', () => {
  test('starts a server, waits for its health check and captures its output', async () => {
    const sup = new Supervisor([spec('a')], fastPolicy);
    await sup.start();
    const s = sup.state('a')!;
    assert.equal(s.status, 'up');
    assert.equal(s.adopted, false);
    assert.ok(s.pid && processExists(s.pid));
    await sup.stop();
    assert.match(readFileSync(s.logFile, 'utf8'), /ready on .*a\.sock/);
  });

  test('restarts a server that dies, counting the restart and reporting why', async () => {
    const sup = new Supervisor([spec('b')], fastPolicy);
    const seen: ServiceState[] = [];
    sup.on('state', (s) => seen.push(s));
    await sup.start();
    const first = sup.state('b')!.pid!;
    process.kill(first, 'SIGKILL');
    await waitFor(sup, 'b', 'restarting');
    const up = await waitFor(sup, 'b', 'up');
    assert.notEqual(up.pid, first);
    assert.equal(up.restarts, 1);
    const restarting = seen.find((s) => s.status === 'restarting')!;
    assert.match(restarting.reason!, /signal SIGKILL/);
    await sup.stop();
  });

  test('gives up after repeated fast failures and says why', async () => {
    const sup = new Supervisor([spec('c', 'fail')], fastPolicy);
    await sup.start();
    const failed = await waitFor(sup, 'c', 'failed');
    assert.match(failed.reason!, /gave up after 3 failures/);
    assert.match(failed.reason!, /code 3: boom: cannot open data root/);
    assert.equal(failed.restarts, 2);
    await sup.stop();
  });

  test('the reason of a crash is its error line, not a Node warning, a stack frame or a hint', async () => {
    const sup = new Supervisor([spec('t', 'throw')], fastPolicy);
    await sup.start();
    const failed = await waitFor(sup, 't', 'failed');
    assert.match(failed.reason!, /code 1: Error: cannot bind the socket$/);
    await sup.stop();
  });

  test('a missing program fails at once with the file named', async () => {
    const missing = join(dir, 'build', 'svcd.js');
    const sup = new Supervisor([spec('d', 'normal', { requires: [missing] })], fastPolicy);
    await sup.start();
    const s = sup.state('d')!;
    assert.equal(s.status, 'failed');
    assert.match(s.reason!, /svcd\.js not found/);
  });

  test('a stop asked twice signals once; servers are not in the process group of the app', async () => {
    const sup = new Supervisor([spec('h', 'slow-term')], { ...fastPolicy, stopTimeoutMs: 5_000 });
    await sup.start();
    const s = sup.state('h')!;
    const group = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[2];
    assert.notEqual(group(s.pid!), group(process.pid));
    await Promise.all([sup.stop(), sup.stop()]);
    assert.equal(processExists(s.pid!), false);
    assert.equal(readFileSync(s.logFile, 'utf8').match(/^term$/gm)?.length, 1);
  });

  test('stops cleanly with SIGTERM, and SIGKILL when SIGTERM is ignored', async () => {
    const sup = new Supervisor([spec('e'), spec('f', 'ignore-term')], fastPolicy);
    await sup.start();
    const pids = sup.states().map((s) => s.pid!);
    const t0 = Date.now();
    await sup.stop();
    assert.ok(Date.now() - t0 >= fastPolicy.stopTimeoutMs, 'waited before SIGKILL');
    for (const pid of pids) assert.equal(processExists(pid), false);
    assert.deepEqual(
      sup.states().map((s) => [s.status, s.reason]),
      [
        ['down', 'stopped'],
        ['down', 'stopped'],
      ],
    );
    assert.match(readFileSync(join(dir, 'logs', 'e.log'), 'utf8'), /bye/);
    assert.match(readFileSync(join(dir, 'logs', 'f.log'), 'utf8'), /ignoring SIGTERM/);
  });

  test('adopts a server already answering instead of starting a second one', async () => {
    const socket = join(dir, 'g.sock');
    const running = http.createServer((_req, res) => res.end('OK'));
    await new Promise<void>((r) => running.listen(socket, r));
    const marker = join(dir, 'started-g');
    const s = spec('g', 'normal', {
      adopt: true,
      command: process.execPath,
      args: ['-e', `require('fs').writeFileSync(${JSON.stringify(marker)}, 'x')`],
    });
    const sup = new Supervisor([s], fastPolicy);
    await sup.start();
    const st = sup.state('g')!;
    assert.equal(st.status, 'up');
    assert.equal(st.adopted, true);
    assert.equal(st.pid, undefined);
    assert.equal(existsSync(marker), false, 'no second server was started');
    await sup.stop();
    assert.equal(running.listening, true, 'an adopted server is left running');
    await new Promise((r) => running.close(r));
  });
});
