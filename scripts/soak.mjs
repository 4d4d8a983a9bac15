// npm run soak -- --count N [--seed S]: the faults-under-load test (daemon/bin/faults-under-load.test.ts)
// with each of svcd, svc-registry and containerd killed N times (2 in the default npm test).
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { count: { type: 'string', default: '20' }, seed: { type: 'string' } },
});
if (!/^[1-9]\d*$/.test(values.count)) {
  process.stderr.write(`soak: --count must be a positive integer, not ${values.count}\n`);
  process.exit(2);
}
const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const env = { ...process.env, SVC_SOAK_COUNT: values.count };
if (values.seed !== undefined) env.SVC_SOAK_SEED = values.seed;
const r = spawnSync(
  process.execPath,
  [join(root, 'scripts/run-tests.mjs'), 'daemon/bin/faults-under-load.test'],
  {
    stdio: 'inherit',
    env,
  },
);
process.exit(r.status ?? 1);
