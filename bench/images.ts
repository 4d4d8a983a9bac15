// Image transfer through the engine: pull and push of a 200 MiB image in 5 layers between the
// engine and Distribution registries on loopback, through the Engine API, for svcd and (when
// given) Docker Engine; and svcd's peak resident memory over the whole run.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DirectoryBlobStore } from '../daemon/engine/testing/directory-blob-store';
import { startDistribution, type Distribution } from '../daemon/testing/distribution';
import { buildImage, layerTar } from '../daemon/engine/testing/test-image';
import { pushImage } from '../daemon/engine/images/distribution/push';
import { RegistryClient } from '../daemon/engine/images/distribution/registry-client';
import { engineRequest } from '../daemon/testing/engine-client';
import { destroySvcd, startSvcd } from '../daemon/testing/svcd-harness';
import { peakRssMiB } from './process-memory';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const MiB = 1 << 20;
const layerCount = 5;
const layerSize = 40 * MiB;
const runs = 3;

type Call = (method: string, path: string, headers?: Record<string, string>) => Promise<string>;

function engine(socket: string): Call {
  return async (method, path, headers) => {
    const res = await engineRequest(socket, method, path, { headers });
    const text = res.text();
    const error = text
      .split('\n')
      .filter(Boolean)
      .map((l) => {
        try {
          return (JSON.parse(l) as { error?: string }).error;
        } catch {
          return undefined;
        }
      })
      .find(Boolean);
    if (res.status >= 400 || error)
      throw new Error(`${method} ${path}: ${res.status} ${error ?? text.slice(0, 300)}`);
    return text;
  };
}

async function seconds(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e9;
}

/** A 5-layer image of incompressible data, pushed to `source` as bench/src:1. */
async function seedImage(source: Distribution, workDir: string): Promise<number> {
  const store = new DirectoryBlobStore(join(workDir, 'image-blobs'));
  const tars: Buffer[] = [];
  for (let i = 0; i < layerCount; i++) tars.push(await layerTar({ [`data-${i}`]: randomBytes(layerSize) }));
  const image = await buildImage(store, tars);
  await pushImage({
    client: new RegistryClient({ host: source.host }),
    repository: 'bench/src',
    tag: '1',
    target: image.manifest,
    source: store,
  });
  return image.layers.reduce((sum, l) => sum + l.size, 0);
}

/** One pull and one push of the seeded image; the pull starts with no layer present. */
async function pullAndPush(call: Call, source: Distribution): Promise<{ pull: number; push: number }> {
  const src = `${source.host}/bench/src`;
  const pull = await seconds(() => call('POST', `/images/create?fromImage=${src}&tag=1`));
  // A fresh registry for each push: every layer is uploaded, none skipped or mounted from an
  // earlier run (Docker Engine remembers where it pushed a layer before).
  const target = await startDistribution();
  let push: number;
  try {
    const dst = `${target.host}/bench/dst`;
    await call('POST', `/images/${src}:1/tag?repo=${dst}&tag=1`);
    // Anonymous credentials, as the docker CLI sends them: Docker Engine refuses a push without.
    const auth = { 'X-Registry-Auth': Buffer.from('{}').toString('base64') };
    push = await seconds(() => call('POST', `/images/${dst}/push?tag=1`, auth));
    await call('DELETE', `/images/${dst}:1`);
  } finally {
    await target.stop();
  }
  await call('DELETE', `/images/${src}:1?force=1`);
  return { pull, push };
}

/**
 * Best pull and push times of each engine over `runs`. The engines take turns, run by run, so
 * that both see the same load from whatever else the machine is doing.
 */
async function measure(calls: Call[], source: Distribution): Promise<{ pull: number; push: number }[]> {
  const best = calls.map(() => ({ pull: Infinity, push: Infinity }));
  for (let run = 0; run < runs; run++) {
    for (const [i, call] of calls.entries()) {
      const { pull, push } = await pullAndPush(call, source);
      best[i] = { pull: Math.min(best[i].pull, pull), push: Math.min(best[i].push, push) };
    }
  }
  return best;
}

export const imagesSuite: BenchSuite = {
  name: 'images',
  async run(options: BenchOptions): Promise<BenchRow[]> {
    const source = await startDistribution();
    const svcd = await startSvcd();
    try {
      const bytes = await seedImage(source, options.workDir);
      const mb = bytes / 1e6;
      const docker = options.dockerHost && engine(options.dockerHost.replace(/^unix:\/\//, ''));
      const times = await measure(docker ? [engine(svcd.socket), docker] : [engine(svcd.socket)], source);
      const [ours, theirs] = [times[0], docker ? times[1] : undefined];
      const rss = await peakRssMiB(svcd.pid!);
      const label = `${Math.round(bytes / MiB)} MiB gzip in ${layerCount} layers`;
      return [
        {
          name: `pull ${label}`,
          unit: 'MB/s',
          ours: mb / ours.pull,
          theirs: theirs && mb / theirs.pull,
          higherIsBetter: true,
          target: '>= 1.5x dockerd',
        },
        {
          name: `push ${label}`,
          unit: 'MB/s',
          ours: mb / ours.push,
          theirs: theirs && mb / theirs.push,
          higherIsBetter: true,
          target: '>= 1x dockerd',
        },
        { name: 'svcd peak RSS over pulls and pushes', unit: 'MiB', ours: rss, higherIsBetter: false },
      ];
    } finally {
      await destroySvcd(svcd);
      await source.stop();
    }
  },
};
