// Attaching clients to containers (POST /containers/{id}/attach, its WebSocket twin) and reading
// their logs.
import { ConflictError } from '../../api/errors';
import type { AttachRequest, LogsRequest, LogsStream } from '../../api/container-stream-types';
import type { ContainerLogs } from '../containers/container-logs';
import type { ContainerRegistry } from '../containers/container-registry';
import { AttachSession, type AttachSessionDeps } from './attach-session';

export interface AttachServiceDeps extends AttachSessionDeps {
  registry: ContainerRegistry;
  logs: ContainerLogs;
}

export class AttachService {
  constructor(private readonly deps: AttachServiceDeps) {}

  /** Whether the container's streams are raw terminal data. */
  tty(ref: string): boolean {
    return !!this.deps.registry.get(ref).record.Config.Tty;
  }

  /** Its json-file log (the logs endpoint, and attach's logs=1). */
  logs(ref: string, options: LogsRequest): LogsStream {
    return this.deps.logs.read(this.deps.registry.get(ref), options);
  }

  /** Refuses a paused container when asked to (the caller knows the API version). */
  attach(ref: string, options: AttachRequest): AttachSession {
    const container = this.deps.registry.get(ref);
    if (options.refusePaused && container.record.State.Paused)
      throw new ConflictError(`You cannot attach to a paused container, unpause it first`);
    return new AttachSession(this.deps, container, options);
  }
}
