// Runs every compiled test file with Node's own test runner. Suites start their own svcd,
// containerd and browsers; files run one at a time by default, since two suites racing for the
// two cores made timing-sensitive ones (pull cancellation cleanup) flaky, and the whole run
// stays a few minutes. SVC_TEST_CONCURRENCY=2 runs two at a time. A file name or substring on
// the command line narrows the run.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
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

const filters = process.argv.slice(2);
// The compiled tests, and the scripts' own (plain .mjs, not compiled).
const files = [...findTests(build), ...findTests(join(root, 'scripts'))]
  .filter((f) => filters.length === 0 || filters.some((s) => relative(root, f).includes(s)))
  .sort();
if (files.length === 0) {
  process.stderr.write('run-tests: no test files found under build/ (run npm run build first)\n');
  process.exit(1);
}
const concurrency = process.env.SVC_TEST_CONCURRENCY || '1';
const r = spawnSync(
  process.execPath,
  ['--test', `--test-concurrency=${concurrency}`, '--test-reporter=spec', ...files],
  { stdio: 'inherit', cwd: root },
);
process.exit(r.status ?? 1);
