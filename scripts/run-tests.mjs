// Runs every compiled test file with Node's own test runner, several files side by side: each
// suite starts its own svcd, containerd, registries and browsers on free ports, bridges and
// subnets of its own, and most of a suite's time is spent waiting on containers, so two files per
// core run at once by default (four on a 2-core machine, about a third of the time of one at a
// time); SVC_TEST_CONCURRENCY=1 runs them one by one.
// Each file runs as its own child; its spec output is printed in one piece when it ends, and a
// table of every file's result and duration closes the run. A file name or substring on the
// command line narrows the run.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { setTimeout, clearTimeout } from 'node:timers';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const build = join(root, 'build');

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules') continue;
    if (statSync(p).isDirectory()) findTests(p, out);
    else if (name.endsWith('.test.js') || name.endsWith('.test.mjs')) out.push(p);
  }
  return out;
}

/**
 * A runner killed mid-suite never ran its cleanup: its engines' directories stay under the temp
 * dir with their mounts, bridges, iptables rules and an orphaned containerd. Those whose engine
 * no longer runs and that nothing touched for ten minutes (a suite restarting its engine is
 * not mistaken for one) are cleaned before this run. It runs before any suite of this run starts,
 * and a suite of another run still going keeps its engine running, so none of theirs is swept.
 */
async function sweepAbandoned() {
  const { cleanupUnder } = await import(join(build, 'daemon/testing/svcd-harness.js'));
  const { cleanupPodmanUnder } = await import(join(build, 'daemon/testing/podman-peer.js'));
  const cmdlines = readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .map((p) => {
      try {
        return readFileSync(`/proc/${p}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    });
  for (const name of readdirSync(tmpdir())) {
    if (!/^(svcd|dockerd-peer|podman-peer)-/.test(name)) continue;
    const dir = join(tmpdir(), name);
    const touched = ['', 'data', 'svcd.sock', 'docker.sock', 'podman.sock'].map((f) => {
      try {
        return statSync(join(dir, f)).mtimeMs;
      } catch {
        return 0;
      }
    });
    if (Date.now() - Math.max(...touched) < 10 * 60 * 1000) continue;
    // Its engine still runs: a suite is using it. (An orphaned containerd or conmon does not count.)
    const engine = (c) => /(^|\/)(node|dockerd|podman)$/.test(c.split('\0')[0]) && c.includes(`${dir}/`);
    if (cmdlines.some(engine)) continue;
    await (name.startsWith('podman-peer-') ? cleanupPodmanUnder(dir) : cleanupUnder(dir));
  }
}

/**
 * Files that share something of the host's no suite can make its own run one at a time among
 * themselves: a Docker Engine swarm manager takes ports 2377, 4789 and 7946 and the host-wide
 * docker_gwbridge; the rootless suites share the one test user and its subordinate IDs.
 */
const exclusiveGroups = [
  ['swarm', /swarm/],
  ['rootless', /rootless/],
];
const groupOf = (file) => exclusiveGroups.find(([, re]) => re.test(relative(root, file)))?.[0];

/**
 * How long each file took when it last passed, so the longest start first and the run does not
 * end on one long file alone. Kept in the build folder; a clean checkout starts from the
 * durations committed in scripts/test-durations.json (refresh it by copying the build folder's
 * after adding or moving test files).
 */
const durationsFile = join(build, '.test-durations.json');
const committedDurations = join(root, 'scripts/test-durations.json');
function readDurations() {
  const read = (file) => {
    try {
      return JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      return {};
    }
  };
  return { ...read(committedDurations), ...read(durationsFile) };
}

/** The counts the spec reporter prints last (`ℹ pass 12`). */
function counts(output) {
  const count = (label) => Number(output.match(new RegExp(`^ℹ ${label} (\\d+)$`, 'm'))?.[1] ?? 0);
  return { tests: count('tests'), pass: count('pass'), fail: count('fail'), skipped: count('skipped') };
}

const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

function runFile(file) {
  const started = Date.now();
  const child = spawn(process.execPath, ['--test', '--test-reporter=spec', file], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.set(child, file);
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  // A file that hangs (an engine left running keeps its process alive) ends the run's wait, not
  // the run: SIGTERM lets its cleanup run, SIGKILL follows if that hangs too.
  const limit = setTimeout(() => {
    output += `\nrun-tests: ${relative(root, file)} still running after ${seconds(fileLimitMs)}; SIGTERM\n`;
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), 30_000).unref();
  }, fileLimitMs);
  return new Promise((resolve) => {
    child.once('close', (code, signal) => {
      clearTimeout(limit);
      running.delete(child);
      resolve({ file: relative(root, file), code: code ?? signal, ms: Date.now() - started, output });
    });
  });
}

const filters = process.argv.slice(2);
// The compiled tests, and the scripts' own (plain .mjs, not compiled).
const files = [...findTests(build), ...findTests(join(root, 'scripts'))].filter(
  (f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)),
);
if (files.length === 0) {
  process.stderr.write('run-tests: no test files found under build/ (run npm run build first)\n');
  process.exit(1);
}
await sweepAbandoned();

// Ten times the longest file's usual time.
const fileLimitMs = (Number(process.env.SVC_TEST_FILE_LIMIT_S) || 1200) * 1000;
const concurrency = Math.max(1, Number(process.env.SVC_TEST_CONCURRENCY) || 2 * availableParallelism());
const durations = readDurations();
// Unmeasured files first, the biggest of them first (a rough guess at the longest).
const expected = (f) => durations[relative(root, f)] ?? 1e12 + statSync(f).size;
const queue = [...files].sort((a, b) => expected(b) - expected(a) || a.localeCompare(b));
const running = new Map();
const busyGroups = new Set();
const results = [];
const runStarted = Date.now();

// Interrupted, the children get the signal too (they share the terminal's process group) and
// run their cleanup; this runner waits for them instead of leaving them half done.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    const names = [...running.values()].map((file) => relative(root, file));
    process.stdout.write(`\nrun-tests: ${signal}; still running: ${names.join(', ') || 'none'}\n`);
    // No file starts after the signal: the run ends with those already going.
    queue.length = 0;
    for (const child of running.keys()) child.kill(signal);
  });
}

process.stdout.write(`run-tests: ${files.length} files, ${concurrency} at a time\n`);
await new Promise((done) => {
  const next = () => {
    while (running.size < concurrency) {
      const i = queue.findIndex((f) => !busyGroups.has(groupOf(f)));
      if (i < 0) break;
      const [file] = queue.splice(i, 1);
      const group = groupOf(file);
      if (group) busyGroups.add(group);
      runFile(file).then((result) => {
        if (group) busyGroups.delete(group);
        results.push(result);
        const status = result.code === 0 ? 'ok' : `FAILED (exit ${result.code})`;
        process.stdout.write(
          `\n━━ ${result.file}: ${status}, ${seconds(result.ms)} [${results.length}/${files.length}]\n`,
        );
        process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
        if (queue.length === 0 && running.size === 0) done();
        else next();
      });
    }
  };
  next();
});

const failed = results.filter((r) => r.code !== 0);
for (const r of results) if (r.code === 0) durations[r.file] = Math.round(r.ms);
mkdirSync(build, { recursive: true });
writeFileSync(durationsFile, `${JSON.stringify(durations, null, 2)}\n`);

process.stdout.write('\n━━ summary (longest first)\n');
const width = Math.max(...results.map((r) => r.file.length));
for (const r of results.sort((a, b) => b.ms - a.ms)) {
  const c = counts(r.output);
  const status = r.code === 0 ? 'ok  ' : 'FAIL';
  const skipped = c.skipped ? `, ${c.skipped} skipped` : '';
  process.stdout.write(
    `${status} ${r.file.padEnd(width)} ${seconds(r.ms).padStart(8)}  ${c.pass}/${c.tests} passed${skipped}\n`,
  );
}
const total = results.reduce((n, r) => n + counts(r.output).tests, 0);
const failing = results.reduce((n, r) => n + counts(r.output).fail, 0);
process.stdout.write(
  `\n${results.length} files, ${total} tests, ${failing} failed, ${failed.length} files failed, ` +
    `${seconds(Date.now() - runStarted)} wall time at ${concurrency} at a time\n`,
);
if (failed.length) process.stdout.write(`failed: ${failed.map((r) => r.file).join(', ')}\n`);
process.exit(failed.length ? 1 : 0);
