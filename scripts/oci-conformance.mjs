// npm run conformance -- --suite FILE [--suite FILE…] [--storage filesystem|s3|both]: the OCI
// distribution-spec conformance suites (test binaries built from that repository's
// `conformance/` folder, see CONTRIBUTING) against svc-registry on the filesystem driver and on
// S3 over a Ceph gateway started here, every workflow on (pull, push, discovery, management).
// Not part of `npm test`: the suites are Go programs that this machine cannot download.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, stripVTControlCharacters } from 'node:util';

const { values } = parseArgs({
  options: {
    suite: { type: 'string', multiple: true, default: [] },
    storage: { type: 'string', default: 'both' },
  },
});
const storages = { filesystem: ['filesystem'], s3: ['s3'], both: ['filesystem', 's3'] }[values.storage];
if (!values.suite.length || !storages) {
  process.stderr.write(
    'usage: npm run conformance -- --suite FILE [--suite FILE…] [--storage filesystem|s3|both]\n',
  );
  process.exit(2);
}
const build = join(dirname(fileURLToPath(import.meta.url)), '..', 'build', 'daemon');
const { startCeph, cephMissing } = await import(join(build, 'testing', 'ceph-cluster.js'));
const { startRegistry, s3TestEnv } = await import(join(build, 'registry', 'testing', 'registry-process.js'));

// The summary lines of ginkgo v1 and v2 ("Ran 59 of 62 Specs…", "SUCCESS! -- 59 Passed | …").
const summary = (out) =>
  stripVTControlCharacters(out)
    .split('\n')
    .filter((line) => /^(Ran \d+ of \d+ Specs|SUCCESS!|FAIL!)/.test(line))
    .join('; ');

/** Runs every suite against a registry at `url`; true when all passed. */
function runSuites(url, storage) {
  let passed = true;
  values.suite.forEach((file, i) => {
    const dir = mkdtempSync(join(tmpdir(), 'oci-conformance-'));
    const ns = `conformance/${storage}-${i}-${Date.now()}`;
    const r = spawnSync(resolve(file), [], {
      cwd: dir,
      encoding: 'utf8',
      maxBuffer: 64 << 20,
      env: {
        ...process.env,
        OCI_ROOT_URL: url,
        OCI_NAMESPACE: `${ns}/one`,
        OCI_CROSSMOUNT_NAMESPACE: `${ns}/other`,
        OCI_TEST_PULL: '1',
        OCI_TEST_PUSH: '1',
        OCI_TEST_CONTENT_DISCOVERY: '1',
        OCI_TEST_CONTENT_MANAGEMENT: '1',
        // svc-registry, like Distribution, mounts only from the repository a client names.
        OCI_AUTOMATIC_CROSSMOUNT: 'false',
      },
    });
    rmSync(dir, { recursive: true, force: true });
    const ok = r.status === 0;
    passed &&= ok;
    process.stdout.write(
      `${storage} ${basename(file)}: ${ok ? 'pass' : 'FAIL'} — ${summary(r.stdout ?? '')}\n`,
    );
    if (!ok) process.stdout.write(`${(r.stdout ?? '').slice(-6000)}${r.stderr ?? ''}${r.error ?? ''}\n`);
  });
  return passed;
}

async function againstRegistry(storage) {
  const registry = await startRegistry({});
  try {
    return runSuites(registry.url, storage);
  } finally {
    await registry.stop();
  }
}

async function onStorage(storage) {
  if (storage === 'filesystem') return againstRegistry(storage);
  const missing = cephMissing();
  if (missing) throw new Error(`conformance on S3 needs Ceph: ${missing}`);
  const ceph = await startCeph();
  // The registry's test helper then gives the registry a bucket of its own on this gateway.
  process.env[s3TestEnv] = JSON.stringify({
    endpoint: ceph.endpoint,
    accessKey: ceph.accessKey,
    secretKey: ceph.secretKey,
  });
  try {
    return await againstRegistry(storage);
  } finally {
    delete process.env[s3TestEnv];
    await ceph.stop();
  }
}

let passed = true;
for (const storage of storages) passed = (await onStorage(storage)) && passed;
process.exit(passed ? 0 : 1);
