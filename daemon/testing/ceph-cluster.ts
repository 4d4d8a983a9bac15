// Starts a single-node Ceph cluster (one monitor, one memstore OSD, a RADOS Gateway) on
// 127.0.0.1 with random free ports and its state in a temp dir, for the S3 driver's tests. No
// cephx (auth none; the monitor then needs `ms mon client mode = crc secure`), a short paxos
// interval for a fast start, pools of size 1 with few placement groups. Stopped by pid; nothing
// is left behind. About 2 s to start, ~140 MB resident.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

export interface CephCluster {
  /** The gateway's S3 endpoint, e.g. http://127.0.0.1:40123 */
  endpoint: string;
  accessKey: string;
  secretKey: string;
  dir: string;
  stop(): Promise<void>;
}

const binaries = ['ceph-mon', 'ceph-osd', 'radosgw', 'radosgw-admin', 'monmaptool', 'ceph'];

/** Why a Ceph cluster cannot start here (a missing package), or undefined when it can. */
export function cephMissing(): string | undefined {
  const missing = binaries.filter((b) => !existsSync(`/usr/bin/${b}`));
  return missing.length
    ? `Ceph is not installed (missing ${missing.join(', ')}: apt-get install ceph-mon ceph-osd radosgw ceph-common, or npm run setup)`
    : undefined;
}

function config(dir: string, fsid: string, monPort: number, rgwPort: number): string {
  return `[global]
fsid = ${fsid}
mon host = v2:127.0.0.1:${monPort}
public addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
ms mon client mode = crc secure
paxos propose interval = 0.01
mon allow pool size one = true
mon warn on pool no redundancy = false
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 4
osd pool default pgp num = 4
osd pool default pg autoscale mode = off
osd crush chooseleaf type = 0
osd objectstore = memstore
memstore device bytes = ${8 * 2 ** 30}
run dir = ${dir}/run
admin socket = ${dir}/run/$name.asok
log file = ${dir}/log/$name.log
mon data = ${dir}/mon/$cluster-$id
osd data = ${dir}/osd/$cluster-$id
keyring = ${dir}/keyring
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:${rgwPort}
rgw data = ${dir}/rgw
`;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function stopDaemon(child: ChildProcess): Promise<void> {
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited(child);
  clearTimeout(timer);
}

async function waitFor(what: string, check: () => Promise<boolean>, daemons: ChildProcess[]): Promise<void> {
  for (let i = 0; i < 600; i++) {
    const dead = daemons.find((d) => d.exitCode !== null || d.signalCode !== null);
    if (dead) throw new Error(`${dead.spawnfile} exited while waiting for ${what}`);
    if (await check().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`Ceph: timed out waiting for ${what}`);
}

export async function startCeph(): Promise<CephCluster> {
  const dir = await mkdtemp(join(tmpdir(), 'ceph-test-'));
  const daemons: ChildProcess[] = [];
  const stop = async (): Promise<void> => {
    for (const d of daemons.reverse()) await stopDaemon(d);
    await rm(dir, { recursive: true, force: true });
  };
  try {
    for (const sub of ['mon/ceph-a', 'osd/ceph-0', 'run', 'log', 'rgw'])
      await mkdir(join(dir, sub), { recursive: true });
    const fsid = randomUUID();
    const [monPort, rgwPort] = [await freePort(), await freePort()];
    const conf = join(dir, 'ceph.conf');
    await writeFile(conf, config(dir, fsid, monPort, rgwPort));
    const ceph = (cmd: string, args: string[]) =>
      run(cmd, ['-c', conf, ...args], { cwd: dir, timeout: 60_000 });
    const daemon = (cmd: string, args: string[]): void => {
      const child = spawn(cmd, ['-c', conf, '-f', ...args], { cwd: dir, stdio: 'ignore' });
      daemons.push(child);
    };
    await run('monmaptool', [
      '--create',
      '--addv',
      'a',
      `[v2:127.0.0.1:${monPort}]`,
      '--fsid',
      fsid,
      join(dir, 'monmap'),
    ]);
    await run('ceph-authtool', [
      '--create-keyring',
      join(dir, 'keyring'),
      '--gen-key',
      '-n',
      'mon.',
      '--cap',
      'mon',
      'allow *',
    ]);
    await ceph('ceph-mon', ['--mkfs', '-i', 'a', '--monmap', join(dir, 'monmap')]);
    daemon('ceph-mon', ['-i', 'a']);
    const osdUuid = randomUUID();
    const { stdout: osdId } = await ceph('ceph', ['osd', 'new', osdUuid]);
    await ceph('ceph-osd', ['-i', osdId.trim(), '--mkfs', '--osd-uuid', osdUuid]);
    daemon('ceph-osd', ['-i', osdId.trim()]);
    const accessKey = randomBytes(10).toString('hex').toUpperCase();
    const secretKey = randomBytes(20).toString('hex');
    // radosgw-admin writes to RADOS: it waits for the OSD to come up.
    await ceph('radosgw-admin', [
      'user',
      'create',
      '--uid',
      'test',
      '--display-name',
      'test',
      '--access-key',
      accessKey,
      '--secret-key',
      secretKey,
    ]);
    daemon('radosgw', ['-n', 'client.rgw']);
    const endpoint = `http://127.0.0.1:${rgwPort}`;
    await waitFor('the RADOS Gateway', async () => (await fetch(endpoint)).ok, daemons);
    return { endpoint, accessKey, secretKey, dir, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
