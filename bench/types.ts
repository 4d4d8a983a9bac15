// The shape every bench suite returns: one row per figure, ours beside the peer's.

export interface BenchOptions {
  /** Docker Engine 20.10 socket to compare against, e.g. unix:///tmp/peer-docker/docker.sock. */
  dockerHost?: string;
  /** Rootless Docker's socket, the rootless suite's peer, e.g. unix:///run/user/1000/docker.sock. */
  rootlessDockerHost?: string;
  /** Distribution 2.8 base URL to compare against, e.g. http://127.0.0.1:5001. */
  distributionUrl?: string;
  /** How long the logfollow suite follows a log, minutes (the figure: 10). */
  followMinutes?: number;
  /** Working directory for this bench run (temp data roots live under it). */
  workDir: string;
}

export interface BenchRow {
  name: string;
  unit: string;
  ours: number;
  /** The peer's figure for the same operation in the same run; absent when no peer was given. */
  theirs?: number;
  /** True for throughputs (MB/s, req/s), false for latencies and memory. */
  higherIsBetter: boolean;
  /** The target, in words, e.g. ">= 1.2x". */
  target?: string;
}

export interface BenchSuite {
  name: string;
  run(options: BenchOptions): Promise<BenchRow[]>;
}
