// Runs every compiled test file with Node's own test runner. Suites start their own svcd,
// containerd and browsers; files run one at a time by default, since two suites racing for the
// two cores made timing-sensitive ones (pull cancellation cleanup) flaky, and the whole run
// stays a few minutes. SVC_TEST_CONCURRENCY=2 runs two at a time. A file name or substring on
// the command line narrows the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
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
 * not mistaken for one) are cleaned before this run.
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

const filters = process.argv.slice(2);
// The compiled tests, and the scripts' own (plain .mjs, not compiled).
const files = [...findTests(build), ...findTests(join(root, 'scripts'))]
  .filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)))
  .sort();
if (files.length === 0) {
  process.stderr.write('run-tests: no test files found under build/ (run npm run build first)\n');
  process.exit(1);
}
await sweepAbandoned();
const concurrency = process.env.SVC_TEST_CONCURRENCY || '1';
const r = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', cwd: root },
);
process.exit(r.status ?? 1);
