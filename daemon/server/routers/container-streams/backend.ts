// What the container streams router (logs, attach, stats) needs from the engine.
import type {
  AttachRequest,
  LogsRequest,
  LogsStream,
  StatsRequest,
} from '../../../api/container-stream-types';
import type { StatsSample } from '../../../api/stats-types';
import type { StdioSession } from '../../streams/stdio-session';

export interface ContainerStreamsBackend {
  /** Whether the container was created with a TTY (its streams are raw); 404 when unknown. */
  tty(ref: string): boolean;
  logs(ref: string, req: LogsRequest): LogsStream;
  attach(ref: string, req: AttachRequest): StdioSession;
  stats(ref: string, req: StatsRequest): AsyncIterable<StatsSample>;
}
