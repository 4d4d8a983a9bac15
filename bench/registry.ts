// Registry throughput: blob pushes (whole and in 8 MiB chunks), blob pulls (one client, then 1 to
// 32 at once), manifest PUT/GET rates and the registry's memory along the way, for svc-registry
// and, when given, Distribution on the same data.
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256, type Digest } from '../daemon/lib/digest';
import { MediaTypes } from '../daemon/lib/media-types';
import { http, type HttpResponse } from '../daemon/testing/http-client';
import {
  descriptor,
  pushBlob,
  pushBlobChunked,
  putManifest,
} from '../daemon/registry/testing/registry-client';
import { startRegistry } from '../daemon/registry/testing/registry-process';
import { concurrentPulls } from './concurrent-pulls';
import { listenerPid, rssMB } from './process-memory';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const MiB = 1 << 20;
const chunkSize = 8 * MiB;
const manifestCount = 500;
const manifestConcurrency = 4;
/** Runs per figure; the best is kept, for ours and the peer alike. Pulls are cheap and noisy. */
const repeats: Record<string, number> = { '64 MiB': 3, '512 MiB': 2, manifests: 2 };
const pullRepeats: Record<string, number> = { '64 MiB': 6, '512 MiB': 3 };

interface Blob {
  data: Buffer;
  digest: Digest;
}

/** Content for one push: a shared random buffer with a fresh stamp, so no registry has it yet. */
function freshBlob(pool: Buffer, size: number, stamp: number): Blob {
  const data = pool.subarray(0, size);
  data.writeDoubleBE(stamp, 0);
  data.writeDoubleBE(Math.random(), 8);
  return { data, digest: sha256(data) };
}

function expect(res: HttpResponse, status: number, what: string): void {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.toString().slice(0, 200)}`);
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

async function inParallel(count: number, fn: (i: number) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await fn(next++);
  };
  await Promise.all(Array.from({ length: manifestConcurrency }, worker));
}

export interface Target {
  base: string;
  name: string;
  /** The registry's process, for its memory figures. */
  pid?: number;
  figures: Record<string, number>;
  lastDigest: Partial<Record<string, Digest>>;
}

/** Rows where less is better: times to first byte and memory. */
const lowerIsBetter = (row: string): boolean => row.includes('first byte') || row.startsWith('RSS');

function keepBest(target: Target, row: string, value: number): void {
  const old = target.figures[row];
  const better = lowerIsBetter(row) ? Math.min : Math.max;
  target.figures[row] = old === undefined ? value : better(old, value);
}

/** Memory at rest: read after both registries had a few seconds without requests. */
export async function noteMemory(targets: Target[], row: string): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 3000));
  for (const t of targets) if (t.pid) t.figures[row] = await rssMB(t.pid);
}

/** How many times each figure is measured (the best is kept). */
export interface Repeats {
  push: Record<string, number>;
  pull: Record<string, number>;
  /** Runs of each concurrent-pull figure, and the pulls each client makes in one run. */
  concurrent: number;
  pullsPerClient: number;
}

const defaultRepeats: Repeats = { push: repeats, pull: pullRepeats, concurrent: 3, pullsPerClient: 2 };

/** Pushes, then pulls, each size in turn, alternating between the targets on every run. */
export async function measureBlobs(targets: Target[], pool: Buffer, plan = defaultRepeats): Promise<void> {
  let stamp = Date.now();
  for (const [label, size] of [
    ['64 MiB', 64 * MiB],
    ['512 MiB', 512 * MiB],
  ] as const) {
    const mb = size / 1e6;
    for (let run = 0; run < plan.push[label]; run++) {
      for (const t of targets) {
        const whole = freshBlob(pool, size, stamp++);
        keepBest(
          t,
          `push ${label} monolithic`,
          mb / (await timed(() => pushBlob(t.base, t.name, whole.data, whole.digest))),
        );
        t.lastDigest[label] = whole.digest;
        const chunked = freshBlob(pool, size, stamp++);
        keepBest(
          t,
          `push ${label} 8 MiB chunks`,
          mb / (await timed(() => pushBlobChunked(t.base, t.name, chunked.data, chunkSize, chunked.digest))),
        );
      }
    }
    // Pulled by curl, as the concurrent pulls are: a client whose own cost is small and the same
    // for every registry; the rate is curl's own, from the request to the last byte.
    for (let run = 0; run < plan.pull[label]; run++) {
      for (const t of targets) {
        const url = `${t.base}/v2/${t.name}/blobs/${t.lastDigest[label]}`;
        const figures = await concurrentPulls({ clients: 1, urls: [url], pullsPerClient: 1 });
        keepBest(t, `pull ${label}`, figures.fastestTransferMBps);
      }
    }
  }
}

/** 1, 8 and 32 clients (by default) pulling one 64 MiB blob, and eight different ones. */
export async function measureConcurrentPulls(
  targets: Target[],
  pool: Buffer,
  clientCounts = [1, 8, 32],
  plan = defaultRepeats,
): Promise<void> {
  const size = 64 * MiB;
  const urls = new Map<Target, string[]>();
  let stamp = Date.now();
  for (const t of targets) {
    const list: string[] = [];
    for (let i = 0; i < 8; i++) {
      const blob = freshBlob(pool, size, stamp++);
      await pushBlob(t.base, t.name, blob.data, blob.digest);
      list.push(`${t.base}/v2/${t.name}/blobs/${blob.digest}`);
    }
    urls.set(t, list);
  }
  for (const clients of clientCounts) {
    for (const blobs of [1, 8]) {
      const label = `pull 64 MiB, ${clients} client${clients > 1 ? 's' : ''}, ${blobs === 1 ? 'one blob' : '8 blobs'}`;
      for (let run = 0; run < plan.concurrent; run++) {
        for (const t of targets) {
          const pullsPerClient = clients === 1 ? 2 * plan.pullsPerClient : plan.pullsPerClient;
          const load = { clients, urls: urls.get(t)!.slice(0, blobs), pullsPerClient };
          const figures = await concurrentPulls(load);
          keepBest(t, `${label}, aggregate`, figures.mbPerSecond);
          keepBest(t, `${label}, p99 first byte`, figures.p99FirstByteMs);
        }
      }
    }
  }
}

async function measureManifests(targets: Target[]): Promise<void> {
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux' }));
  const layer = randomBytes(1024);
  const body = (i: number): Buffer =>
    Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: MediaTypes.ociManifest,
        config: descriptor('application/vnd.oci.image.config.v1+json', config),
        layers: [descriptor('application/vnd.oci.image.layer.v1.tar+gzip', layer)],
        annotations: { 'bench.index': String(i) },
      }),
    );
  for (const t of targets) {
    await pushBlob(t.base, t.name, config);
    await pushBlob(t.base, t.name, layer);
  }
  for (let run = 0; run < repeats.manifests; run++) {
    for (const t of targets) {
      const offset = run * manifestCount;
      const puts = await timed(() =>
        inParallel(manifestCount, async (i) => {
          const res = await putManifest(
            t.base,
            t.name,
            `t${offset + i}`,
            body(offset + i),
            MediaTypes.ociManifest,
          );
          expect(res, 201, 'manifest PUT');
        }),
      );
      keepBest(t, 'manifest PUT', manifestCount / puts);
      const gets = await timed(() =>
        inParallel(manifestCount, async (i) => {
          const res = await http(`${t.base}/v2/${t.name}/manifests/t${offset + i}`, {
            headers: { Accept: MediaTypes.ociManifest },
          });
          if (res.status !== 200) throw new Error(`manifest GET: ${res.status}`);
        }),
      );
      keepBest(t, 'manifest GET', manifestCount / gets);
    }
  }
}

function targetOf(row: string): string | undefined {
  if (row.startsWith('push')) return '>= 1.2x';
  if (row.endsWith('first byte')) return 'no worse';
  if (row.startsWith('pull') && row.includes('client'))
    return row.includes(' 1 client') ? undefined : '>= 1.2x';
  if (row.startsWith('pull')) return '>= 1.2x';
  if (row === 'RSS after the concurrent pulls') return '<= 60 MB';
  if (row.startsWith('RSS')) return undefined;
  return '>= 2x';
}

function unitOf(row: string): string {
  if (row.startsWith('manifest')) return 'req/s';
  if (row.endsWith('first byte')) return 'ms';
  return row.startsWith('RSS') ? 'MB' : 'MB/s';
}

/** One row per figure of ours, the peer's beside it. */
export function benchRows(ours: Target, peer: Target | undefined, prefix = 'registry'): BenchRow[] {
  const round = (n: number | undefined) => (n === undefined ? undefined : Math.round(n * 10) / 10);
  return Object.keys(ours.figures).map((row) => ({
    name: `${prefix} ${row}`,
    unit: unitOf(row),
    ours: round(ours.figures[row]) as number,
    theirs: round(peer?.figures[row]),
    higherIsBetter: !lowerIsBetter(row),
    target: targetOf(row),
  }));
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const dataDir = await mkdtemp(join(options.workDir, 'svc-registry-'));
  const registry = await startRegistry({ dataDir });
  try {
    const name = `bench/run-${Date.now()}`;
    const ours: Target = { base: registry.url, name, pid: registry.child.pid, figures: {}, lastDigest: {} };
    const peerBase = options.distributionUrl?.replace(/\/$/, '');
    const peer: Target | undefined = peerBase
      ? {
          base: peerBase,
          name,
          pid: await listenerPid(Number(new URL(peerBase).port)),
          figures: {},
          lastDigest: {},
        }
      : undefined;
    const targets = peer ? [ours, peer] : [ours];
    const pool = randomBytes(512 * MiB);
    await noteMemory(targets, 'RSS after start');
    await measureManifests(targets);
    await noteMemory(targets, `RSS after ${repeats.manifests * manifestCount} manifest PUTs`);
    await measureBlobs(targets, pool);
    await measureConcurrentPulls(targets, pool);
    await noteMemory(targets, 'RSS after the concurrent pulls');
    return benchRows(ours, peer);
  } finally {
    await registry.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

export const registrySuite: BenchSuite = { name: 'registry', run };
