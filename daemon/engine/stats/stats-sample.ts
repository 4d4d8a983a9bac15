// One stats sample of a running container: cgroup v1 figures from containerd's task metrics, the
// memory counters from the cgroup's memory.stat, host CPU time from /proc/stat and the network
// counters of the container's own namespace (/proc/<pid>/net/dev).
import { readFile } from 'node:fs/promises';
import { totalmem } from 'node:os';
import type { CgroupBlkioEntry, CgroupV1Metrics } from '../../runtime/containerd/cgroup-metrics';
import type { BlkioEntry, CpuStats, NetworkStats, StatsSample } from '../../api/stats-types';

const zeroTime = '0001-01-01T00:00:00Z';
// USER_HZ: /proc/stat counts in these ticks on every Linux Docker supports.
const clockTicksPerSecond = 100;

/** Host CPU time in nanoseconds (user to softirq, as Docker sums it) and the online CPUs. */
export async function hostCpu(): Promise<{ systemNs: number; onlineCpus: number }> {
  const text = await readFile('/proc/stat', 'latin1');
  let systemNs = 0;
  let onlineCpus = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('cpu ')) {
      const ticks = line
        .split(/\s+/)
        .slice(1, 8)
        .reduce((sum, v) => sum + Number(v), 0);
      systemNs = (ticks * 1e9) / clockTicksPerSecond;
    } else if (/^cpu\d/.test(line)) onlineCpus++;
  }
  return { systemNs, onlineCpus };
}

/** Interfaces other than loopback, from a /proc/<pid>/net/dev. */
export function parseNetDev(text: string): Record<string, NetworkStats> {
  const out: Record<string, NetworkStats> = {};
  for (const line of text.split('\n').slice(2)) {
    const colon = line.indexOf(':');
    if (colon < 0) continue;
    const name = line.slice(0, colon).trim();
    if (name === 'lo') continue;
    const v = line
      .slice(colon + 1)
      .trim()
      .split(/\s+/)
      .map(Number);
    out[name] = {
      rx_bytes: v[0],
      rx_packets: v[1],
      rx_errors: v[2],
      rx_dropped: v[3],
      tx_bytes: v[8],
      tx_packets: v[9],
      tx_errors: v[10],
      tx_dropped: v[11],
    };
  }
  return out;
}

/** Sums the interfaces into the single `network` object of API 1.19 and 1.20. */
export function sumNetworks(networks: Record<string, NetworkStats>): NetworkStats {
  const sum: NetworkStats = {
    rx_bytes: 0,
    rx_packets: 0,
    rx_errors: 0,
    rx_dropped: 0,
    tx_bytes: 0,
    tx_packets: 0,
    tx_errors: 0,
    tx_dropped: 0,
  };
  for (const n of Object.values(networks))
    for (const k of Object.keys(sum) as Array<keyof NetworkStats>) sum[k] += n[k];
  return sum;
}

/** The counters of the memory cgroup the process is in, or undefined when unreadable. */
async function memoryStat(pid: number): Promise<Record<string, number> | undefined> {
  try {
    const cgroups = await readFile(`/proc/${pid}/cgroup`, 'latin1');
    const path = /^\d+:(?:[^:]*,)?memory(?:,[^:]*)?:(.*)$/m.exec(cgroups)?.[1];
    if (path === undefined) return undefined;
    const text = await readFile(`/sys/fs/cgroup/memory${path}/memory.stat`, 'latin1');
    const stats: Record<string, number> = {};
    for (const line of text.split('\n')) {
      const [key, value] = line.split(' ');
      if (key && value !== undefined) stats[key] = Number(value);
    }
    return stats;
  } catch {
    return undefined;
  }
}

function blkio(entries: CgroupBlkioEntry[] | undefined): BlkioEntry[] {
  return (entries ?? []).map((e) => ({ major: e.major, minor: e.minor, op: e.op, value: e.value }));
}

export function emptyCpuStats(): CpuStats {
  return {
    cpu_usage: { total_usage: 0, usage_in_kernelmode: 0, usage_in_usermode: 0 },
    throttling_data: { periods: 0, throttled_periods: 0, throttled_time: 0 },
  };
}

/** What Docker answers for a container that is not running: names and zeros. */
export function emptySample(id: string, name: string): StatsSample {
  return {
    read: zeroTime,
    preread: zeroTime,
    pids_stats: {},
    blkio_stats: {
      io_service_bytes_recursive: null,
      io_serviced_recursive: null,
      io_queue_recursive: null,
      io_service_time_recursive: null,
      io_wait_time_recursive: null,
      io_merged_recursive: null,
      io_time_recursive: null,
      sectors_recursive: null,
    },
    num_procs: 0,
    storage_stats: {},
    cpu_stats: emptyCpuStats(),
    precpu_stats: emptyCpuStats(),
    memory_stats: {},
    name,
    id,
  };
}

export interface SampleInput {
  id: string;
  name: string;
  pid: number;
  /** False for network mode host: the host's interfaces are not the container's. */
  ownNetwork: boolean;
  metrics: CgroupV1Metrics | undefined;
  read: Date;
}

export async function buildSample(input: SampleInput): Promise<StatsSample> {
  const [host, memStats, netDev] = await Promise.all([
    hostCpu(),
    memoryStat(input.pid),
    input.ownNetwork ? readFile(`/proc/${input.pid}/net/dev`, 'latin1').catch(() => '') : Promise.resolve(''),
  ]);
  const m = input.metrics;
  const sample = emptySample(input.id, input.name);
  sample.read = input.read.toISOString().replace(/Z$/, '000000Z');
  const usage = m?.cpu?.usage;
  const throttling = m?.cpu?.throttling;
  sample.cpu_stats = {
    cpu_usage: {
      total_usage: usage?.total ?? 0,
      percpu_usage: usage?.perCpu ?? [],
      usage_in_kernelmode: usage?.kernel ?? 0,
      usage_in_usermode: usage?.user ?? 0,
    },
    system_cpu_usage: host.systemNs,
    online_cpus: host.onlineCpus,
    throttling_data: {
      periods: throttling?.periods ?? 0,
      throttled_periods: throttling?.throttledPeriods ?? 0,
      throttled_time: throttling?.throttledTime ?? 0,
    },
  };
  if (m?.pids)
    sample.pids_stats = { current: m.pids.current, ...(m.pids.limit ? { limit: m.pids.limit } : {}) };
  const mem = m?.memory;
  if (mem) {
    const machine = totalmem();
    const limit = mem.usage?.limit ?? machine;
    sample.memory_stats = {
      usage: mem.usage?.usage ?? 0,
      max_usage: mem.usage?.max ?? 0,
      stats: memStats ?? {
        cache: mem.cache,
        rss: mem.rss,
        total_cache: mem.totalCache,
        total_rss: mem.totalRss,
        total_inactive_file: mem.totalInactiveFile,
      },
      failcnt: mem.usage?.failcnt ?? 0,
      // No limit reads as a huge number in cgroup v1; Docker shows the machine's memory instead.
      limit: limit > machine ? machine : limit,
    };
  }
  if (m?.blkio) {
    sample.blkio_stats.io_service_bytes_recursive = blkio(m.blkio.ioServiceBytesRecursive);
    sample.blkio_stats.io_serviced_recursive = blkio(m.blkio.ioServicedRecursive);
  }
  const networks = parseNetDev(netDev);
  if (Object.keys(networks).length > 0) sample.networks = networks;
  return sample;
}
