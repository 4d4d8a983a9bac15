// What the container streams router (logs, attach, stats) and its backend exchange.

export type StdStreamName = 'stdout' | 'stderr';

export interface LogsRequest {
  stdout: boolean;
  stderr: boolean;
  /** Nanoseconds since the epoch; 0 or undefined: no bound. */
  since?: bigint;
  until?: bigint;
  /** Last N lines; undefined or negative: all. */
  tail?: number;
  follow: boolean;
  /** Each line prefixed with its time (RFC 3339, nine fraction digits). */
  timestamps?: boolean;
  /** Each line prefixed with the attributes stored with it (`details`). */
  details?: boolean;
  /** The client went away. */
  signal: AbortSignal;
}

/** One line of a container's log, as the client is to see it. */
export interface LogLine {
  source: StdStreamName;
  /** The text with the prefixes asked for: with its "\n", or without one for a partial line. */
  line: string;
}

export interface LogsStream {
  /** The container's streams are raw terminal data (no stdout/stderr frames). */
  tty: boolean;
  batches: AsyncIterable<LogLine[]>;
}

export interface AttachRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** A paused container is refused with 409. */
  refusePaused: boolean;
}

export interface StatsRequest {
  stream: boolean;
  oneShot: boolean;
  /** One object per interface (`networks`); otherwise one summed `network`. */
  networksPerInterface: boolean;
  /** cpu_stats report online_cpus. */
  onlineCpus: boolean;
  signal: AbortSignal;
}
