// Registry throughput on S3: svc-registry and Distribution 2.8 (`docker-registry`) side by side,
// each with its own bucket on one Ceph RADOS Gateway started here, both given the same
// Distribution configuration but for the bucket and address. Redirects are off for both, so
// every byte goes through the registry measured (with them on, clients pull from the gateway
// and both registries measure the same thing). Rows: pushes and pulls of 64 and 512 MiB, 8 and
// 32 clients pulling, and each registry's memory after the pulls.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startCeph, type CephCluster } from '../daemon/testing/ceph-cluster';
import { startDistributionOn, type DistributionProcess } from '../daemon/testing/distribution-process';
import { createTestBucket, startRegistry } from '../daemon/registry/testing/registry-process';
import {
  benchRows,
  measureBlobs,
  measureConcurrentPulls,
  noteMemory,
  type Repeats,
  type Target,
} from './registry';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const MiB = 1 << 20;
// Fewer runs than the filesystem suite: every byte pushed stays in the gateway's memory store.
const plan: Repeats = {
  push: { '64 MiB': 2, '512 MiB': 1 },
  pull: { '64 MiB': 3, '512 MiB': 2 },
  concurrent: 3,
  pullsPerClient: 1,
};

/** Distribution's configuration on a bucket of the cluster, the same for both registries. */
function distributionConfig(ceph: CephCluster, bucket: string): object {
  return {
    version: '0.1',
    log: { level: 'error' },
    storage: {
      s3: {
        accesskey: ceph.accessKey,
        secretkey: ceph.secretKey,
        region: 'us-east-1',
        regionendpoint: ceph.endpoint,
        bucket,
        secure: false,
        v4auth: true,
        chunksize: 10 * MiB,
      },
      delete: { enabled: true },
      redirect: { disable: true },
    },
  };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const ceph = await startCeph();
  let distribution: DistributionProcess | undefined;
  try {
    const file = join(options.workDir, 'distribution.yml');
    // JSON is YAML.
    await writeFile(file, JSON.stringify(distributionConfig(ceph, await createTestBucket(ceph, 'bench'))));
    distribution = await startDistributionOn(file);
    const registry = await startRegistry({
      config: distributionConfig(ceph, await createTestBucket(ceph, 'bench')),
    });
    try {
      const name = `bench/run-${Date.now()}`;
      const target = (base: string, pid?: number): Target => ({
        base,
        name,
        pid,
        figures: {},
        lastDigest: {},
      });
      const ours = target(registry.url, registry.child.pid);
      const theirs = target(distribution.url, distribution.child.pid);
      const targets = [ours, theirs];
      const pool = randomBytes(512 * MiB);
      await measureBlobs(targets, pool, plan);
      await measureConcurrentPulls(targets, pool, [8, 32], plan);
      await noteMemory(targets, 'RSS after the concurrent pulls');
      return benchRows(ours, theirs, 'registry on S3').map((row) =>
        row.name.includes('RSS') ? { ...row, target: "<= Distribution's" } : row,
      );
    } finally {
      await registry.stop();
    }
  } finally {
    await distribution?.stop();
    await ceph.stop();
  }
}

export const registryS3Suite: BenchSuite = { name: 'registry-s3', run };
