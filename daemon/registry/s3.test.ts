// The registry's suites again, on S3: one Ceph cluster (monitor, OSD, RADOS Gateway) started
// here, and the same test files run against it (startRegistry gives each registry a bucket of
// its own when SVC_REGISTRY_TEST_S3 names the gateway). Left out, as filesystem matters by
// nature: durability (fsync order under strace), disk-full (a full filesystem) and crash (files
// cut short on disk).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../lib/digest';
import { MediaTypes } from '../lib/media-types';
import { cephMissing, startCeph, type CephCluster } from '../testing/ceph-cluster';
import { http } from '../testing/http-client';
import { startDistributionOn } from '../testing/distribution-process';
import { writeBusyboxLayout } from './testing/oci-layout';
import { pushSmallImage, putManifest } from './testing/registry-client';
import { createTestBucket, s3TestEnv, startRegistry } from './testing/registry-process';

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

const peersMissing =
  missing || (['docker-registry', 'skopeo'].find((c) => spawnSync(c, ['--version']).status !== 0) ?? false);

test(
  "Distribution's own config file, unchanged: svc-registry and Distribution 2.8 serve one bucket, redirects on",
  { skip: peersMissing && `missing ${peersMissing}`, timeout: 5 * 60_000 },
  async () => {
    const scratch = await mkdtemp(join(tmpdir(), 'svc-registry-s3-peer-'));
    const bucket = await createTestBucket(ceph, 'shared');
    // The bucket comes from the environment, as Distribution's deployments often give it.
    const yaml = [
      'version: 0.1',
      'log:',
      '  level: error',
      'storage:',
      '  s3:',
      `    accesskey: ${ceph.accessKey}`,
      `    secretkey: ${ceph.secretKey}`,
      '    region: us-east-1',
      `    regionendpoint: ${ceph.endpoint}`,
      '    bucket: named-by-the-environment',
      '    secure: false',
      '    v4auth: true',
      '    rootdirectory: /registry',
      '  delete:',
      '    enabled: true',
      'http:',
      '  addr: 127.0.0.1:5000',
      '  secret: shared-secret',
    ].join('\n');
    const configFile = join(scratch, 'config.yml');
    await writeFile(configFile, `${yaml}\n`);
    const env = { REGISTRY_STORAGE_S3_BUCKET: bucket };
    const distribution = await startDistributionOn(configFile, env);
    const ours = await startRegistry({ configFile, env });
    const skopeo = (...args: string[]) => {
      const r = spawnSync('skopeo', ['--insecure-policy', ...args], { encoding: 'utf8', timeout: 120_000 });
      return { status: r.status, output: `${r.stdout}${r.stderr}` };
    };
    try {
      // Pushed through Distribution, pulled through svc-registry (which redirects the blobs).
      const image = await writeBusyboxLayout(join(scratch, 'src'), 'v1', join(scratch, 'build'));
      const push = skopeo(
        'copy',
        '--dest-tls-verify=false',
        `oci:${image.dir}:v1`,
        `docker://${distribution.host}/peer/busybox:v1`,
      );
      assert.equal(push.status, 0, push.output);
      const manifest = await http(`${ours.url}/v2/peer/busybox/manifests/v1`, {
        headers: { Accept: MediaTypes.ociManifest },
      });
      assert.equal(manifest.status, 200, manifest.body.toString());
      assert.equal(sha256(manifest.body), image.manifestDigest);
      const blob = await http(`${ours.url}/v2/peer/busybox/blobs/${image.layerDigest}`);
      assert.equal(blob.status, 307, 'redirects are on by default, as in Distribution');
      assert.match(String(blob.headers.location), /^http:\/\/127\.0\.0\.1:\d+\/.*X-Amz-Signature=/);
      const head = await http(`${ours.url}/v2/peer/busybox/blobs/${image.layerDigest}`, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.headers['docker-content-digest'], image.layerDigest);
      const out = join(scratch, 'out');
      const pull = skopeo(
        'copy',
        '--src-tls-verify=false',
        `docker://${ours.host}/peer/busybox:v1`,
        `oci:${out}:v1`,
      );
      assert.equal(pull.status, 0, pull.output);
      for (const d of [image.layerDigest, image.configDigest, image.manifestDigest])
        assert.ok(existsSync(join(out, 'blobs/sha256', d.slice(7))), `skopeo followed the redirect to ${d}`);
      // Pushed through svc-registry, served by Distribution.
      const body = await pushSmallImage(ours.url, 'peer/small', 'ours');
      assert.equal((await putManifest(ours.url, 'peer/small', 'v1', body)).status, 201);
      const theirs = await http(`${distribution.url}/v2/peer/small/manifests/v1`, {
        headers: { Accept: MediaTypes.dockerManifest },
      });
      assert.equal(theirs.status, 200, theirs.body.toString());
      assert.ok(theirs.body.equals(body));
      const back = join(scratch, 'back');
      const viaPeer = skopeo(
        'copy',
        '--src-tls-verify=false',
        `docker://${distribution.host}/peer/small:v1`,
        `dir:${back}`,
      );
      assert.equal(viaPeer.status, 0, viaPeer.output);
      const tags = await http(`${distribution.url}/v2/peer/small/tags/list`);
      assert.deepEqual(tags.json(), { name: 'peer/small', tags: ['v1'] });
    } finally {
      await ours.stop();
      await distribution.stop();
      await rm(scratch, { recursive: true, force: true });
    }
  },
);
