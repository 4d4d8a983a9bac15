// The registry's suites again, on S3: one Ceph cluster (monitor, OSD, RADOS Gateway) started
// here, and the same test files run against it (startRegistry gives each registry a bucket of
// its own when SVC_REGISTRY_TEST_S3 names the gateway). Left out, as filesystem matters by
// nature: durability (fsync order under strace), disk-full (a full filesystem) and crash (files
// cut short on disk).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { cephMissing, startCeph, type CephCluster } from '../testing/ceph-cluster';
import { s3TestEnv } from './testing/registry-process';

const suites = [
  'handlers/blobs',
  'handlers/manifests',
  'handlers/uploads',
  'handlers/pagination',
  'server',
  'auth/auth',
  'storage/concurrent-push',
  'storage/gc',
  'fuzz',
  'clients',
  'engines',
  'replicas',
];

/** This environment for a test run of its own (not one reporting to this runner as its child). */
function nestedEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env, ...extra };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

const missing = cephMissing();
let ceph: CephCluster;
before(async () => {
  if (!missing) ceph = await startCeph();
});
after(() => ceph?.stop());

test('the registry suites pass on S3 (Ceph RGW)', { skip: missing, timeout: 40 * 60_000 }, async () => {
  const ext = __filename.endsWith('.ts') ? '.ts' : '.js';
  const files = suites.map((s) => join(__dirname, `${s}.test${ext}`));
  const target = { endpoint: ceph.endpoint, accessKey: ceph.accessKey, secretKey: ceph.secretKey };
  const child = spawn(
    process.execPath,
    [...(ext === '.ts' ? ['--import', 'tsx'] : []), '--test', '--test-reporter=spec', ...files],
    { env: nestedEnv({ [s3TestEnv]: JSON.stringify(target) }), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
  child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const summary = output.split('\n').filter((l) => /^ℹ (tests|pass|fail|skipped|cancelled)/.test(l));
  process.stdout.write(`# on S3: ${summary.join(', ')}\n`);
  const count = (what: string): number =>
    Number(new RegExp(`^ℹ ${what} (\\d+)`, 'm').exec(output)?.[1] ?? -1);
  const failing = output.lastIndexOf('✖ failing tests');
  assert.ok(
    count('pass') > 0 && count('fail') === 0,
    failing >= 0 ? output.slice(failing) : output.slice(-20_000),
  );
  assert.equal(code, 0, failing >= 0 ? output.slice(failing) : output.slice(-20_000));
});
