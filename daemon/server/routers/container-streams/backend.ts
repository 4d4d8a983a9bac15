// What the container streams router (logs, attach, stats) needs from the engine.
import type { LogsOptions } from '../../../engine/containers/container-logs';
import type { LogMessage } from '../../../engine/logs/json-file-reader';
import type { StatsSample } from '../../../engine/stats/stats-types';
import type { StdioSession } from '../../streams/stdio-session';

/** The engine's logs options (streams, since/until in nanoseconds, tail, follow, signal). */
export type LogsRequest = LogsOptions;

export interface AttachRequest {
  stdin: boolean;
  stdout: boolean;
  stderr: boolean;
  /** 409 for a paused container (API 1.22 and later). */
  refusePaused: boolean;
}

export interface StatsRequest {
  stream: boolean;
  oneShot: boolean;
  signal: AbortSignal;
}

export interface ContainerStreamsBackend {
  /** Whether the container was created with a TTY (its streams are raw); 404 when unknown. */
  tty(ref: string): boolean;
  logs(ref: string, req: LogsRequest): { tty: boolean; batches: AsyncIterable<LogMessage[]> };
  attach(ref: string, req: AttachRequest): StdioSession;
  stats(ref: string, req: StatsRequest): AsyncIterable<StatsSample>;
}
