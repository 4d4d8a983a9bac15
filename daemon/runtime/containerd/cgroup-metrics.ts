// cgroup v1 statistics of a task (io.containerd.cgroups.v1.Metrics), the subset in our proto.

export interface CgroupMemoryEntry {
  limit: number;
  usage: number;
  max: number;
  failcnt: number;
}

export interface CgroupBlkioEntry {
  op: string;
  device: string;
  major: number;
  minor: number;
  value: number;
}

export interface CgroupV1Metrics {
  pids: { current: number; limit: number } | null;
  cpu: {
    usage: { total: number; kernel: number; user: number; perCpu: number[] } | null;
    throttling: { periods: number; throttledPeriods: number; throttledTime: number } | null;
  } | null;
  memory: {
    cache: number;
    rss: number;
    totalCache: number;
    totalRss: number;
    totalInactiveFile: number;
    usage: CgroupMemoryEntry | null;
    swap: CgroupMemoryEntry | null;
    kernel: CgroupMemoryEntry | null;
  } | null;
  blkio: { ioServiceBytesRecursive: CgroupBlkioEntry[]; ioServicedRecursive: CgroupBlkioEntry[] } | null;
}

export const cgroupV1MetricsType = 'io.containerd.cgroups.v1.Metrics';
