// One client attached to a container: the output of its current run (or, attached before a
// start, of its next run) and the way into its stdin. Plain streams: the HTTP layer frames them.
import { EventEmitter } from 'node:events';
import type { AttachRequest } from '../../api/container-stream-types';
import type { Container } from '../containers/container';
import type { ContainerIO, StdStream } from '../containers/container-io';
import type { ContainerIOFeed } from '../containers/container-io-feed';
import { type EngineContext, publishContainerEvent } from '../containers/engine-context';
import { isRunning } from '../containers/container-state';

export interface AttachSessionDeps extends Pick<EngineContext, 'client' | 'events'> {
  ioFeed: ContainerIOFeed;
}

/**
 * Emits `data` (stream, chunk) for the chosen streams and `end` once the run it follows has
 * printed its last byte. Stdin written before the run starts is held until it does.
 */
export class AttachSession extends EventEmitter {
  readonly tty: boolean;
  private io?: ContainerIO;
  private pendingStdin: Buffer[] = [];
  private stdinEnded = false;
  private closed = false;
  private readonly onIO = (c: Container, io: ContainerIO) => {
    if (c === this.container && !this.io) this.follow(io);
  };
  private readonly onData = (stream: StdStream, chunk: Buffer) => {
    if (this.options[stream]) this.emit('data', stream, chunk);
  };
  private readonly onEnd = () => this.end();

  constructor(
    private readonly deps: AttachSessionDeps,
    readonly container: Container,
    private readonly options: Pick<AttachRequest, 'stdin' | 'stdout' | 'stderr'>,
  ) {
    super();
    this.tty = !!container.record.Config.Tty;
    const running = isRunning(container.record.State) && container.io;
    if (running) this.follow(container.io!);
    else deps.ioFeed.add(this.onIO);
    publishContainerEvent(deps, container, 'attach');
  }

  private get takesStdin(): boolean {
    return this.options.stdin && !!this.container.record.Config.OpenStdin;
  }

  private follow(io: ContainerIO): void {
    this.deps.ioFeed.delete(this.onIO);
    this.io = io;
    io.on('data', this.onData);
    io.once('end', this.onEnd);
    for (const chunk of this.pendingStdin.splice(0)) io.stdin?.write(chunk);
    if (this.stdinEnded) void this.closeContainerStdin();
  }

  /** Bytes the client typed. */
  writeStdin(chunk: Buffer): void {
    if (!this.takesStdin || this.closed) return;
    if (this.io) this.io.stdin?.write(chunk);
    else this.pendingStdin.push(chunk);
  }

  /**
   * The client's stdin ended (or it detached). With StdinOnce the container's stdin closes too,
   * as `docker run -i` expects; otherwise it stays open for the next client.
   */
  endStdin(): void {
    if (!this.takesStdin || this.stdinEnded || !this.container.record.Config.StdinOnce) return;
    this.stdinEnded = true;
    if (this.io) void this.closeContainerStdin();
  }

  private async closeContainerStdin(): Promise<void> {
    const io = this.io;
    if (!io?.stdin) return;
    await new Promise<void>((resolve) => io.stdin!.end(resolve));
    await this.deps.client.tasks.closeIO(this.container.id).catch(() => undefined);
  }

  /** The detach keys were typed: the container keeps running. */
  detach(): void {
    publishContainerEvent(this.deps, this.container, 'detach');
    this.endStdin();
    this.close();
  }

  private end(): void {
    if (this.closed) return;
    this.close();
    this.emit('end');
  }

  /** Stops listening (the client went away). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.deps.ioFeed.delete(this.onIO);
    this.io?.off('data', this.onData);
    this.io?.off('end', this.onEnd);
  }
}
