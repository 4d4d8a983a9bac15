// GET /containers/{id}/stats: a sample a second while streaming; one sample with a previous
// read for precpu when not; one-shot answers at once with what it reads now.
import { isRunning } from '../containers/container-state';
import type { Container } from '../containers/container';
import type { ContainerRegistry } from '../containers/container-registry';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { StatsRequest } from '../../api/container-stream-types';
import { buildSample, emptyCpuStats, emptySample, sumNetworks } from './stats-sample';
import type { StatsSample } from '../../api/stats-types';

const intervalMs = 1000;
// An earlier sample between these ages serves as precpu (a shorter gap is too noisy to use);
// without one, stream=false takes a second sample this long after the first.
const minPreviousAgeMs = 100;
const maxPreviousAgeMs = 5000;
const primingGapMs = 250;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export class StatsService {
  /** The last sample read of each container, with when it was read. */
  private readonly last = new Map<string, { at: number; sample: StatsSample }>();

  constructor(private readonly deps: { registry: ContainerRegistry; client: ContainerdClient }) {}

  /** A fresh sample of a running container (precpu empty), or undefined when it is not running. */
  async sample(container: Container): Promise<StatsSample | undefined> {
    const s = container.record.State;
    if (!isRunning(s) || s.Pid <= 0) {
      this.last.delete(container.id);
      return undefined;
    }
    const { client } = this.deps;
    const [metrics] = await client.tasks.metrics([container.id]).catch(() => []);
    if (!metrics) return undefined;
    const sample = await buildSample({
      id: container.id,
      name: container.name,
      pid: s.Pid,
      ownNetwork: container.record.NetworkMode !== 'host',
      metrics: metrics.cgroupV1,
      read: new Date(),
    });
    this.last.set(container.id, { at: Date.now(), sample });
    return sample;
  }

  private withPrevious(sample: StatsSample, previous: StatsSample | undefined): StatsSample {
    return previous
      ? { ...sample, preread: previous.read, precpu_stats: previous.cpu_stats }
      : { ...sample, precpu_stats: emptyCpuStats() };
  }

  /** The samples to send: one (stream false) or one a second until the client leaves; 404 at once. */
  stats(ref: string, options: StatsRequest): AsyncGenerator<StatsSample> {
    return this.shaped(this.samples(this.deps.registry.get(ref), options), options);
  }

  /** Older clients' shapes: one summed `network`, no online_cpus. */
  private async *shaped(
    samples: AsyncGenerator<StatsSample>,
    options: StatsRequest,
  ): AsyncGenerator<StatsSample> {
    for await (const sample of samples) {
      const out = { ...sample };
      if (!options.networksPerInterface) {
        if (out.networks) out.network = sumNetworks(out.networks);
        delete out.networks;
      }
      if (!options.onlineCpus) {
        out.cpu_stats = { ...out.cpu_stats, online_cpus: undefined };
        out.precpu_stats = { ...out.precpu_stats, online_cpus: undefined };
      }
      yield out;
    }
  }

  private async *samples(container: Container, options: StatsRequest): AsyncGenerator<StatsSample> {
    const empty = () => emptySample(container.id, container.name);
    if (!options.stream) {
      const cached = this.last.get(container.id);
      const sample = await this.sample(container);
      if (!sample) return yield empty();
      if (options.oneShot) return yield this.withPrevious(sample, undefined);
      const age = cached ? Date.now() - cached.at : Infinity;
      if (cached && age >= minPreviousAgeMs && age <= maxPreviousAgeMs)
        return yield this.withPrevious(sample, cached.sample);
      // No usable earlier read: prime with this one and read again, as Docker primes its first
      // frame (it waits for its 1 s collector twice; a quarter second gives CPU figures as sound).
      await sleep(primingGapMs, options.signal);
      const second = await this.sample(container);
      return yield second ? this.withPrevious(second, sample) : empty();
    }
    let previous: StatsSample | undefined;
    while (!options.signal.aborted) {
      const started = Date.now();
      const sample = await this.sample(container);
      if (sample) {
        yield this.withPrevious(sample, previous);
        previous = sample;
      } else if (container.removed) return;
      await sleep(Math.max(0, intervalMs - (Date.now() - started)), options.signal);
    }
  }
}
