// svcd as a user runs it: its command line, the system endpoints with real figures, the docker
// CLI against it, and surviving kill -9 of its containerd and of itself.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { request as httpsRequest } from 'node:https';
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { cpus, release, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventsSince } from '../testing/engine-client';
import {
  destroySvcd,
  engineEvents,
  startSvcd,
  svcdCommand,
  type SvcdInstance,
} from '../testing/svcd-harness';
import { processExists } from '../lib/process-exists';
import { pollUntil } from '../testing/poll';
import { makePki, startTlsSvcd } from '../testing/test-pki';

const run = promisify(execFile);

/** Polls `fn` (a failed try counts as no answer yet) until it gives a value. */
function waitFor<T>(what: string, fn: () => Promise<T | undefined>, ms = 30000): Promise<T> {
  return pollUntil(what, () => fn().catch(() => undefined), { timeoutMs: ms });
}

/** Runs svcd to completion with the given arguments, for the refusals that must exit non-zero. */
function runSvcd(args: string[]): Promise<{ code: number | null; stderr: string; stdout: string }> {
  const { command, args: base } = svcdCommand();
  return new Promise((resolve) => {
    const child = spawn(command, [...base, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    let stdout = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr, stdout });
    });
  });
}

describe('svcd', () => {
  let svcd: SvcdInstance;

  before(async () => {
    svcd = await startSvcd();
  });

  after(async () => {
    await destroySvcd(svcd);
  });

  const containerdPid = () =>
    Number(readFileSync(join(svcd.dataRoot, 'containerd', 'containerd.pid'), 'utf8'));

  test('the ready line names the socket, and the socket is 0660', async () => {
    assert.equal((await stat(svcd.socket)).mode & 0o777, 0o660);
    const r = await svcd.request('GET', '/_ping');
    assert.equal(r.status, 200);
    assert.equal(r.text(), 'OK');
    assert.match(String(r.headers['server']), /^Svc\//);
  });

  test('/version reports the API range and the real containerd and runc', async () => {
    const v = (await svcd.request('GET', '/v1.41/version')).json<Record<string, unknown>>();
    assert.equal(v.ApiVersion, '1.41');
    assert.equal(v.MinAPIVersion, '1.19');
    assert.equal(v.Os, 'linux');
    assert.equal(v.KernelVersion, release());
    assert.ok(!Number.isNaN(Date.parse(String(v.BuildTime))));
    const components = v.Components as Array<{ Name: string; Version: string }>;
    const { stdout } = await run('containerd', ['--version']);
    assert.ok(stdout.includes(components.find((c) => c.Name === 'containerd')!.Version));
    const runc = await run('runc', ['--version']);
    assert.ok(runc.stdout.includes(components.find((c) => c.Name === 'runc')!.Version));
  });

  test('/info reports the host and the data root as they are', async () => {
    const info = (await svcd.request('GET', '/info')).json<Record<string, unknown>>();
    assert.equal(info.NCPU, cpus().length);
    assert.equal(info.MemTotal, totalmem());
    assert.equal(info.KernelVersion, release());
    assert.equal(info.DockerRootDir, svcd.dataRoot);
    assert.equal(info.Containers, 0);
    assert.equal(info.Images, 0);
    assert.equal(info.CgroupDriver, 'cgroupfs');
    assert.equal(info.CgroupVersion, existsSync('/sys/fs/cgroup/cgroup.controllers') ? '2' : '1');
    assert.match(String(info.OperatingSystem), /\S/);
    assert.ok(typeof info.ID === 'string' && info.ID.length > 0);
    assert.deepEqual(Object.keys(info.Runtimes as object), ['runc']);
    assert.ok(Array.isArray(info.Warnings));
  });

  test('/system/df answers the four sections', async () => {
    const df = (await svcd.request('GET', '/system/df')).json<Record<string, unknown>>();
    assert.equal(df.LayersSize, 0);
    for (const k of ['Images', 'Containers', 'Volumes', 'BuildCache']) assert.ok(Array.isArray(df[k]), k);
  });

  test(
    'the docker CLI talks to svcd (API negotiation included)',
    {
      skip:
        !existsSync('/usr/local/bin/docker') &&
        !existsSync('/usr/bin/docker') &&
        'no docker CLI on this machine',
    },
    async () => {
      const env = { ...process.env, DOCKER_HOST: `unix://${svcd.socket}` };
      const version = await run('docker', ['version'], { env });
      assert.match(version.stdout, /API version:\s+1\.41/);
      assert.match(version.stdout, /Svc Desktop Engine/);
      const info = await run('docker', ['info'], { env });
      assert.match(info.stdout, new RegExp(`CPUs: ${cpus().length}`));
      assert.match(info.stdout, new RegExp(`Docker Root Dir: ${svcd.dataRoot}`));
      const df = await run('docker', ['system', 'df'], { env });
      assert.match(df.stdout, /^TYPE\s+TOTAL/m);
      assert.match(df.stdout, /^Images\s+0/m);
    },
  );

  test('kill -9 of its containerd: svcd starts another and keeps answering', async () => {
    const before = containerdPid();
    process.kill(before, 'SIGKILL');
    const after = await waitFor('a new containerd', async () => {
      const pid = containerdPid();
      return pid !== before && processExists(pid) ? pid : undefined;
    });
    assert.notEqual(after, before);
    const v = await waitFor('/version with containerd', async () => {
      const r = await svcd.request('GET', '/version');
      return r.status === 200 ? r.json<{ Components: Array<{ Name: string }> }>() : undefined;
    });
    assert.ok(v.Components.some((c) => c.Name === 'containerd'));
  });

  test('a second svcd on the same data root refuses to start', async () => {
    const r = await runSvcd([
      '--data-root',
      svcd.dataRoot,
      '--host',
      `unix://${join(svcd.dir, 'other.sock')}`,
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /in use by another svcd/);
    assert.equal(r.stdout, '');
    assert.equal((await svcd.request('GET', '/_ping')).status, 200, 'the first svcd is untouched');
  });

  test('kill -9 of svcd, then start again: same data root, same identity, no cleanup', async () => {
    const id = (await svcd.request('GET', '/info')).json<{ ID: string }>().ID;
    await svcd.kill9();
    await svcd.start();
    const info = (await svcd.request('GET', '/info')).json<{ ID: string }>();
    assert.equal(info.ID, id);
  });

  test('SIGHUP reloads --config as dockerd does: applied, announced; a broken file changes nothing', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svcd-hup-'));
    const config = join(dir, 'daemon.json');
    await writeFile(config, JSON.stringify({ 'insecure-registries': ['before.test:5000'] }));
    const hup = await startSvcd({ args: ['--config', config, '--insecure-registry', 'flag.test:5000'] });
    type Info = { ID: string; Name: string; RegistryConfig: { IndexConfigs: Record<string, unknown> } };
    const insecure = async () =>
      Object.keys((await hup.request('GET', '/info')).json<Info>().RegistryConfig.IndexConfigs).sort();
    const reloads = (since: number) => engineEvents(hup, since, { type: ['daemon'] });
    try {
      assert.deepEqual(await insecure(), ['before.test:5000', 'docker.io', 'flag.test:5000']);
      const since = Date.now() / 1000;
      await writeFile(
        config,
        JSON.stringify({ 'insecure-registries': ['after.test:5000'], 'log-level': 'debug' }),
      );
      process.kill(hup.pid!, 'SIGHUP');
      const [reload] = await waitFor('the reload event', async () => {
        const list = await reloads(since);
        return list.length > 0 ? list : undefined;
      });
      const info = (await hup.request('GET', '/info')).json<Info>();
      assert.equal(reload.Action, 'reload');
      assert.equal(reload.Actor.ID, info.ID);
      assert.deepEqual(reload.Actor.Attributes, {
        name: info.Name,
        'insecure-registries': '[flag.test:5000 after.test:5000]',
        'log-level': 'debug',
      });
      assert.deepEqual(await insecure(), ['after.test:5000', 'docker.io', 'flag.test:5000']);
      await waitFor('a debug line', async () => (hup.stderr.includes(' debug ') ? true : undefined));

      const broken = await eventsSince();
      await writeFile(config, '{ not json');
      process.kill(hup.pid!, 'SIGHUP');
      await waitFor('the refusal', async () =>
        hup.stderr.includes('configuration not reloaded') ? true : undefined,
      );
      assert.equal((await hup.request('GET', '/_ping')).status, 200);
      assert.deepEqual(await insecure(), ['after.test:5000', 'docker.io', 'flag.test:5000']);
      assert.deepEqual(await reloads(broken), []);
    } finally {
      await destroySvcd(hup);
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('SIGTERM stops svcd cleanly: exit 0, socket gone, its containerd stopped', async () => {
    const cpid = containerdPid();
    assert.equal(await svcd.stop('SIGTERM'), 0);
    assert.ok(!existsSync(svcd.socket));
    await waitFor('containerd to stop', async () => (processExists(cpid) ? undefined : true), 15000);
    await svcd.start();
  });
});

describe('svcd whose parent is gone', () => {
  test('its output pipes closed, SIGTERM still stops it cleanly and its containerd with it', async () => {
    const orphan = await startSvcd();
    try {
      const cpid = Number(readFileSync(join(orphan.dataRoot, 'containerd', 'containerd.pid'), 'utf8'));
      orphan.closeOutput();
      // The shutdown logs a line to stderr: a write that fails with EPIPE.
      assert.equal(await orphan.stop('SIGTERM'), 0);
      await waitFor('containerd to stop', async () => (processExists(cpid) ? undefined : true), 15000);
    } finally {
      await destroySvcd(orphan);
    }
  });
});

describe('svcd command line', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svcd-cli-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('an unknown option exits 2 with the usage', async () => {
    const r = await runSvcd(['--no-such-flag']);
    assert.equal(r.code, 2);
    assert.match(r.stderr, /unknown option --no-such-flag/);
    assert.match(r.stderr, /Usage: svcd --data-root DIR/);
  });

  test('a non-loopback TCP host without --tlsverify exits 1 with a clear message, TLS alone too', async () => {
    const pki = await makePki(dir);
    const base = ['--data-root', join(dir, 'data'), '--host', `unix://${join(dir, 's.sock')}`];
    for (const tls of [[], ['--tlscert', pki.serverCert, '--tlskey', pki.serverKey]]) {
      const r = await runSvcd([...base, '--host', 'tcp://0.0.0.0:2375', ...tls]);
      assert.equal(r.code, 1);
      assert.match(r.stderr, /refusing to listen on tcp:\/\/0\.0\.0\.0:2375 without --tlsverify/);
    }
    const half = await runSvcd([
      ...base,
      '--tlsverify',
      '--tlscert',
      pki.serverCert,
      '--tlskey',
      pki.serverKey,
    ]);
    assert.equal(half.code, 2);
    assert.match(half.stderr, /--tlsverify checks client certificates against --tlscacert/);
  });

  test('--tlsverify: a client without a certificate of the CA is refused, one with it is served', async () => {
    const pki = await makePki(dir);
    // 127.0.0.2 is on loopback, yet not a loopback name svcd serves in the clear.
    const { svcd, port } = await startTlsSvcd(pki);
    try {
      const ping = (client: { cert?: Buffer; key?: Buffer }) =>
        new Promise<string>((resolve, reject) => {
          const req = httpsRequest(
            { host: '127.0.0.2', port, path: '/_ping', ca: readFileSync(pki.caCert), ...client },
            (res) => {
              let body = '';
              res.on('data', (d: Buffer) => (body += d.toString()));
              res.on('end', () => resolve(`${res.statusCode} ${body}`));
            },
          );
          req.on('error', reject);
          req.end();
        });
      await assert.rejects(ping({}), /certificate|socket hang up|ECONNRESET/);
      assert.equal(
        await ping({ cert: readFileSync(pki.clientCert), key: readFileSync(pki.clientKey) }),
        '200 OK',
      );
    } finally {
      await destroySvcd(svcd);
    }
  });

  test('--group: the socket belongs to that group, 0660; an unknown group stops svcd', async () => {
    const { stdout } = await run('getent', ['group', 'daemon']);
    const gid = Number(stdout.split(':')[2]);
    const svcd = await startSvcd({ args: ['--group', 'daemon'] });
    try {
      const st = await stat(svcd.socket);
      assert.equal(st.gid, gid);
      assert.equal(st.mode & 0o777, 0o660);
    } finally {
      await destroySvcd(svcd);
    }
    const r = await runSvcd([
      '--data-root',
      join(dir, 'data'),
      '--host',
      `unix://${join(dir, 'g.sock')}`,
      '--group',
      'no-such-group-svct',
    ]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /group no-such-group-svct not found/);
  });

  test('a loopback TCP host serves the API too', async () => {
    const port = 20000 + Math.floor(Math.random() * 20000);
    const svcd = await startSvcd({ args: ['--host', `tcp://127.0.0.1:${port}`] });
    try {
      const res = await fetch(`http://127.0.0.1:${port}/v1.41/_ping`);
      assert.equal(res.status, 200);
      assert.equal(await res.text(), 'OK');
    } finally {
      await destroySvcd(svcd);
    }
  });
});
