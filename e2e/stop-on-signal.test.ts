// `npm start` stopped as a user stops it: SIGTERM to the app, or Ctrl-C in its terminal (SIGINT to
// its whole process group, npm included). Web mode on a data directory and ports of its own; the
// app exits 0, and nothing of what it started is left: no svcd, containerd, shim or svc-registry
// of its data directory, no mount under it. Issue #30 found the launcher keeping them running.
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { engineCaller, pullBusybox } from './engine-calls';
import { missingPrerequisite, startWebApp, waitForServices, type WebApp } from './web-mode-fixture';

interface OwnProcess {
  pid: number;
  cmdline: string;
}

/** The processes whose command line names the app's directory: its servers, containerd, shims. */
function processesUnder(dir: string): OwnProcess[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .flatMap((pid) => {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
        // A zombie has an empty command line: it is gone, only not yet reaped.
        return cmdline.includes(`${dir}/`) ? [{ pid: Number(pid), cmdline }] : [];
      } catch {
        return [];
      }
    });
}

function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mountinfo', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[4])
    .filter((m) => m?.startsWith(`${dir}/`));
}

/** The program a process runs, by the script or binary its command line names. */
const programOf = (p: OwnProcess) =>
  /svc-registry/.test(p.cmdline)
    ? 'svc-registry'
    : /svcd\.js/.test(p.cmdline)
      ? 'svcd'
      : /containerd-shim/.test(p.cmdline)
        ? 'shim'
        : /^(\S*\/)?containerd /.test(p.cmdline)
          ? 'containerd'
          : p.cmdline.split(' ')[0];

/** Waits for the app to end, failing (and saying what still runs) if it has not after a long while. */
async function exitOf(app: WebApp): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(
          new Error(
            `the app still runs 3 minutes after the signal; under its directory: ${JSON.stringify(processesUnder(app.dir))}`,
          ),
        ),
      180_000,
    );
  });
  try {
    return await Promise.race([app.exited, hung]);
  } finally {
    clearTimeout(timer);
  }
}

/** What the app started, seen while it runs; asserted so that "nothing left" cannot pass vacuously. */
function startedByApp(app: WebApp, expected: string[]): OwnProcess[] {
  const own = processesUnder(app.dir);
  const programs = new Set(own.map(programOf));
  for (const p of expected) assert.ok(programs.has(p), `${p} runs: ${JSON.stringify(own)}`);
  return own;
}

function assertNothingLeft(app: WebApp, before: OwnProcess[]): void {
  assert.deepEqual(processesUnder(app.dir), [], 'no process of the app is left');
  for (const p of before) {
    let now = '';
    try {
      now = readFileSync(`/proc/${p.pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {}
    assert.notEqual(now, p.cmdline, `${programOf(p)} (pid ${p.pid}) still runs`);
  }
  assert.deepEqual(mountsUnder(app.dir), [], 'nothing is left mounted');
}

describe('npm start stopped by a signal', { skip: missingPrerequisite() }, () => {
  const apps: WebApp[] = [];
  after(async () => {
    // After a failure: what the app left (servers of this test's own directory) goes first,
    // then the fixture's clean-up; after a clean exit there is nothing of either.
    for (const app of apps) {
      for (const p of processesUnder(app.dir)) {
        try {
          process.kill(p.pid, 'SIGKILL');
        } catch {}
      }
      await app.stop();
    }
  });

  test('SIGTERM: the app stops its engine, containerd and the registry, and the running container it was told to stop on quit', async () => {
    const app = await startWebApp();
    apps.push(app);
    await waitForServices(app);
    const settings = await fetch(`${app.base}/api/settings`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${app.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ stopContainersOnQuit: true }),
    });
    assert.equal(settings.status, 200, await settings.text());
    const engine = engineCaller(app);
    const image = await pullBusybox(app);
    const { Id } = (await engine('POST', '/containers/create?name=still-running', {
      Image: image,
      Cmd: ['sleep', '600'],
      HostConfig: { NetworkMode: 'none' },
    })) as { Id: string };
    await engine('POST', `/containers/${Id}/start`);
    const before = startedByApp(app, ['svcd', 'containerd', 'svc-registry', 'shim']);
    assert.ok(mountsUnder(app.dir).length > 0, "the container's root filesystem is mounted");

    process.kill(app.pid, 'SIGTERM');
    assert.deepEqual(await exitOf(app), { code: 0, signal: null });
    assertNothingLeft(app, before);
  });

  test('Ctrl-C in the terminal (SIGINT to the process group): the app and its servers stop, exit 0', async () => {
    const app = await startWebApp({ ownProcessGroup: true });
    apps.push(app);
    await waitForServices(app);
    const before = startedByApp(app, ['svcd', 'containerd', 'svc-registry']);
    // The servers run in process groups of their own: the app alone gets the terminal's signal
    // and stops them in order (svcd takes a second signal as "give up the orderly stop").
    process.kill(-app.pid, 'SIGINT');
    assert.deepEqual(await exitOf(app), { code: 0, signal: null });
    assertNothingLeft(app, before);
  });
});
