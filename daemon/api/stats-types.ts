// Wire shape of GET /containers/{id}/stats (Docker's StatsJSON, cgroup v1 flavour).

export interface BlkioEntry {
  major: number;
  minor: number;
  op: string;
  value: number;
}

export interface CpuStats {
  cpu_usage: {
    total_usage: number;
    percpu_usage?: number[];
    usage_in_kernelmode: number;
    usage_in_usermode: number;
  };
  system_cpu_usage?: number;
  online_cpus?: number;
  throttling_data: { periods: number; throttled_periods: number; throttled_time: number };
}

export interface NetworkStats {
  rx_bytes: number;
  rx_packets: number;
  rx_errors: number;
  rx_dropped: number;
  tx_bytes: number;
  tx_packets: number;
  tx_errors: number;
  tx_dropped: number;
}

export interface StatsSample {
  read: string;
  preread: string;
  pids_stats: { current?: number; limit?: number };
  blkio_stats: Record<string, BlkioEntry[] | null>;
  num_procs: number;
  storage_stats: Record<string, never>;
  cpu_stats: CpuStats;
  precpu_stats: CpuStats;
  memory_stats: {
    usage?: number;
    max_usage?: number;
    stats?: Record<string, number>;
    failcnt?: number;
    limit?: number;
  };
  name: string;
  id: string;
  networks?: Record<string, NetworkStats>;
  /** API 1.19 and 1.20: every interface summed into one object. */
  network?: NetworkStats;
}
