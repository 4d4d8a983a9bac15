// One container in memory: its record, the lock that serialises operations on it, its IO and
// the waiters of POST /wait.
import type { ContainerRecord } from './container-record';
import type { ContainerIO } from './container-io';

type ExitWaiter = (exitCode: number, error: string) => void;

export class Container {
  io?: ContainerIO;
  /** Set while the exit of the current task is being handled, so restart logic runs once. */
  private tail: Promise<unknown> = Promise.resolve();
  private exitWaiters: ExitWaiter[] = [];
  private removeWaiters: Array<() => void> = [];
  /** Cancels a pending restart delay (stop, rm and start cancel it). */
  cancelRestart?: () => void;
  /** Stops the health checks of the current run. */
  stopHealth?: () => void;
  /** When the current run started (for the restart-policy back-off reset). */
  runStartedAt = 0;
  /** Delay before the next policy restart; doubles from 100 ms. */
  restartDelayMs = 0;
  removed = false;
  /** Guards against handling one exit twice (event and reconciliation). */
  exitInProgress = false;
  /** True from task creation until the start is recorded: an exit seen then waits in pendingExit. */
  starting = false;
  pendingExit?: { exitStatus: number; exitedAt?: Date };
  /** The deletion of an exited task while it is under way: a start or removal awaits it. */
  taskTeardown?: Promise<boolean>;
  /** The last exit's record being written: what answers with that exit waits for it. */
  exitSaved?: Promise<void>;
  /** The exited run's network endpoints being removed; a new run waits for it. */
  networkTeardown?: Promise<void>;
  /** A stop or restart is waiting out its grace period (holding the lock): a kill goes through. */
  inGracePeriod = false;
  /**
   * Whether containerd may hold the container's writable layer, and its container: a create
   * makes neither (container-prepare.ts); svcd's start asks containerd about each record.
   */
  layerMade = true;
  runtimeMade = true;

  constructor(public record: ContainerRecord) {}

  get id(): string {
    return this.record.Id;
  }

  get name(): string {
    return this.record.Name;
  }

  /** Runs `fn` after every earlier operation on this container has finished. */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** Resolves at the next exit of the container's task. */
  nextExit(): Promise<{ exitCode: number; error: string }> {
    return new Promise((resolve) => this.exitWaiters.push((exitCode, error) => resolve({ exitCode, error })));
  }

  notifyExit(exitCode: number, error: string): void {
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    for (const w of waiters) w(exitCode, error);
  }

  whenRemoved(): Promise<void> {
    if (this.removed) return Promise.resolve();
    return new Promise((resolve) => this.removeWaiters.push(resolve));
  }

  notifyRemoved(): void {
    this.removed = true;
    for (const w of this.removeWaiters.splice(0)) w();
  }
}
