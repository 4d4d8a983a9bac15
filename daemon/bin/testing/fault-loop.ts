// Faults under load (issue 17): svcd, svc-registry and svcd's containerd, each killed with SIGKILL
// `count` times in turn while a mixed load runs, and after every restart the checks: containers
// as recorded, log lines kept, blobs whole, uploads resumable, nothing left on the host beyond
// what live containers need; at the end, once everything is removed, nothing at all.
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { shimKeeperId } from '../../engine/containers/shim-keeper';
import { importBusybox } from '../../testing/busybox-image';
import { processExists } from '../../lib/process-exists';
import { startRegistry, type RegistryProcess } from '../../registry/testing/registry-process';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../testing/svcd-harness';
import { ContainerChurn, LogWriter } from './container-load';
import { hostLeaks, type Allowed, type EngineFootprint } from './host-leaks';
import { seededRandom, sleep, untilAnswered, type LoadLoop } from './load-loop';
import { BlobUploads, ImageShuttle, storeProblems, uploadedProblems } from './registry-load';

/** How long a round waits for teardowns under way before what is left counts as leaked. */
const settleMs = 10_000;

export const targets = ['svcd', 'svc-registry', 'containerd'] as const;
type Target = (typeof targets)[number];

export interface SoakReport {
  kills: Record<Target, number>;
  containersCreated: number;
  containersRemoved: number;
  execs: number;
  pushes: number;
  pulls: number;
  linesChecked: number;
  blobsChecked: number;
  uploadsResumed: number;
  leaksFound: number;
  /** Everything that must not happen, with the round it was seen after. */
  problems: string[];
}

interface Engine {
  svcd: SvcdInstance;
  registry: RegistryProcess;
}

function containerdPid(svcd: SvcdInstance): number {
  return Number(readFileSync(join(svcd.dataRoot, 'containerd', 'containerd.pid'), 'utf8'));
}

/** SIGKILL, then what brings the target back: svcd and the registry again on the same state. */
async function killAndRestart(target: Target, e: Engine): Promise<void> {
  if (target === 'svcd') {
    await e.svcd.kill9();
    await e.svcd.start();
  } else if (target === 'svc-registry') {
    const { dataDir, port } = e.registry;
    await e.registry.kill();
    e.registry = await startRegistry({ dataDir, port });
  } else {
    // svcd notices and starts another containerd itself.
    const before = containerdPid(e.svcd);
    process.kill(before, 'SIGKILL');
    await untilAnswered('a new containerd', async () => {
      const pid = containerdPid(e.svcd);
      const version = await e.svcd.request('GET', '/version');
      return pid !== before && processExists(pid) && version.status === 200 ? true : undefined;
    });
  }
}

/** What `leaks` finds once the teardowns under way have had settleMs to end. */
function afterSettling(leaks: () => Promise<string[]>): Promise<string[]> {
  return untilAnswered(
    'teardowns to settle',
    async () => {
      const found = await leaks();
      return found.length === 0 ? found : undefined;
    },
    settleMs,
  ).catch(leaks);
}

/** Running or paused containers, and the shim keeper's task, need their whole footprint. */
async function allowedNow(svcd: SvcdInstance): Promise<Allowed> {
  const list = await svcd.request('GET', '/containers/json?all=1');
  const all = list.json<Array<{ Id: string; State: string }>>();
  const live = all.filter((c) => c.State === 'running' || c.State === 'paused').map((c) => c.Id);
  return {
    existing: new Set(all.map((c) => c.Id)),
    live: new Set([...live, shimKeeperId(svcd.dataRoot)]),
    shims: 1,
  };
}

export async function runFaultLoop(
  count: number,
  seed: number,
  print: (line: string) => void,
): Promise<SoakReport> {
  const report: SoakReport = {
    kills: { svcd: 0, 'svc-registry': 0, containerd: 0 },
    containersCreated: 0,
    containersRemoved: 0,
    execs: 0,
    pushes: 0,
    pulls: 0,
    linesChecked: 0,
    blobsChecked: 0,
    uploadsResumed: 0,
    leaksFound: 0,
    problems: [],
  };
  const random = seededRandom(seed);
  const registry = await startRegistry();
  const e: Engine = {
    registry,
    svcd: await startSvcd().catch(async (err: unknown) => {
      await registry.stop();
      throw err;
    }),
  };
  const base = registry.url;
  const writers: LogWriter[] = [];
  let loops: LoadLoop[] = [];
  let churnIds = (): string[] => [];
  const knownIds = () => new Set([...churnIds(), ...writers.map((w) => w.id), shimKeeperId(e.svcd.dataRoot)]);
  try {
    await importBusybox(e.svcd);
    for (const name of ['soak-log-a', 'soak-log-b']) writers.push(await LogWriter.start(e.svcd, name));
    const churn = new ContainerChurn(e.svcd, 'soak');
    const uploads = new BlobUploads(base, random);
    const shuttle = new ImageShuttle(e.svcd, registry.host);
    loops = [churn.loop, uploads.loop, shuttle.loop];
    churnIds = () => churn.ids();
    const footprint = (): EngineFootprint => ({
      dir: e.svcd.dir,
      dataRoot: e.svcd.dataRoot,
      bridge: e.svcd.bridge,
      knownIds: knownIds(),
    });

    for (let round = 1; round <= count * targets.length; round++) {
      const target = targets[(round - 1) % targets.length];
      for (const loop of loops) loop.start();
      await Promise.all(loops.map((l) => l.progress()));
      // Kills land anywhere in the operations under way.
      await sleep(random() * 500);
      const resume = target === 'svc-registry' ? await uploads.half() : undefined;
      const seenAtKill = writers.map((w) => w.seen);
      await killAndRestart(target, e);
      report.kills[target]++;
      // Every strand of the load goes through again after the restart.
      await Promise.all(loops.map((l) => l.progress()));
      const problems: string[] = [];
      const resumed = await resume?.();
      if (resumed) problems.push(resumed);
      await Promise.all(loops.map((l) => l.stop()));
      for (const loop of loops) loop.throwIfFailed();

      problems.push(...(await churn.check()));
      for (const [i, w] of writers.entries()) {
        const logs = await w.check(seenAtKill[i]);
        report.linesChecked += logs.lines;
        problems.push(...logs.problems);
      }
      for (const checked of [
        await uploadedProblems(base, uploads),
        await shuttle.check(base),
        // Only a killed registry could have left a blob file half written.
        target === 'svc-registry' ? await storeProblems(e.registry.dataDir) : { blobs: 0, problems: [] },
      ]) {
        report.blobsChecked += checked.blobs;
        problems.push(...checked.problems);
      }
      // A container whose exit svcd learnt at its restart is torn down just after (CNI DEL, its
      // namespace): what is left once that settles is a leak.
      const leaks = await afterSettling(async () => hostLeaks(footprint(), await allowedNow(e.svcd)));
      report.leaksFound += leaks.length;
      problems.push(...leaks);
      report.problems.push(...problems.map((p) => `after kill ${round} (${target}): ${p}`));
      for (const p of problems) print(`  ${p}`);
      print(
        `round ${round}/${count * targets.length}: killed ${target}; ` +
          `${churn.created} containers created, ${report.linesChecked} lines and ` +
          `${report.blobsChecked} blobs checked, ${uploads.resumed} uploads resumed, ` +
          `${problems.length} problems`,
      );
    }

    // The end: everything removed, then svcd stopped, and nothing of theirs may remain.
    await Promise.all(writers.map((w) => w.stop()));
    const all = (await e.svcd.request('GET', '/containers/json?all=1')).json<Array<{ Id: string }>>();
    for (const c of all) {
      const res = await e.svcd.request('DELETE', `/containers/${c.Id}?force=1`);
      if (res.status !== 204) report.problems.push(`final removal of ${c.Id}: ${res.status} ${res.text()}`);
      else report.containersRemoved++;
    }
    const known = footprint();
    // A removal answers before its teardown ends (container-reaper.ts).
    const removed = await afterSettling(async () => hostLeaks(known, await allowedNow(e.svcd)));
    await e.svcd.stop();
    // The shim exits once svcd released its keeper; what stays past the bound is a leak.
    const stopped = await untilAnswered('the shim to exit', async () => {
      const leaks = hostLeaks(known, { existing: new Set(), live: new Set(), shims: 0 });
      return leaks.length === 0 ? leaks : undefined;
    }).catch(() => hostLeaks(known, { existing: new Set(), live: new Set(), shims: 0 }));
    for (const [when, leaks] of [
      ['with everything removed', removed],
      ['once svcd stopped', stopped],
    ] as const) {
      report.leaksFound += leaks.length;
      report.problems.push(...leaks.map((l) => `${when}: ${l}`));
    }
    report.containersCreated = churn.created + 2;
    report.containersRemoved += churn.removed;
    report.execs = churn.execs;
    report.pushes = shuttle.pushes;
    report.pulls = shuttle.pulls;
    report.uploadsResumed = uploads.resumed;
    if (report.containersCreated !== report.containersRemoved) {
      report.problems.push(
        `${report.containersCreated} containers created, ${report.containersRemoved} removed`,
      );
    }
    return report;
  } catch (err) {
    // What svcd and the registry said last is what tells why the load stopped going through.
    print(`svcd's log ends with:\n${e.svcd.stderr.slice(-4000)}`);
    print(`svc-registry's log ends with:\n${e.registry.stderr().slice(-2000)}`);
    throw err;
  } finally {
    // Every step whatever the others did: nothing of the run may stay on the host.
    for (const step of [
      () => Promise.all(loops.map((l) => l.stop())),
      () => Promise.all(writers.map((w) => w.stop())),
      () => destroySvcd(e.svcd),
      () => e.registry.stop(),
      () => rm(e.registry.dataDir, { recursive: true, force: true }),
    ]) {
      await step().catch((err: Error) => print(`cleanup: ${err.message}`));
    }
  }
}
