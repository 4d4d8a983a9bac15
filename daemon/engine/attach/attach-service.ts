// Attaching clients to containers (POST /containers/{id}/attach, its WebSocket twin) and reading
// their logs.
import { ConflictError } from '../../api/errors';
import type { LogsOptions, LogsStream } from '../containers/container-logs';
import type { ContainersService } from '../containers/containers-service';
import { AttachSession, type AttachOptions } from './attach-session';

export class AttachService {
  constructor(private readonly containers: ContainersService) {}

  /** Whether the container's streams are raw terminal data. */
  tty(ref: string): boolean {
    return !!this.containers.get(ref).record.Config.Tty;
  }

  /** Its json-file log (the logs endpoint, and attach's logs=1). */
  logs(ref: string, options: LogsOptions): LogsStream {
    return this.containers.logs.read(this.containers.get(ref), options);
  }

  /** Refuses a paused container when `pausedConflict` (the caller knows the API version). */
  attach(ref: string, options: AttachOptions & { refusePaused: boolean }): AttachSession {
    const container = this.containers.get(ref);
    if (options.refusePaused && container.record.State.Paused)
      throw new ConflictError(`You cannot attach to a paused container, unpause it first`);
    return new AttachSession(this.containers, container, options);
  }
}
