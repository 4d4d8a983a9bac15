// The live cluster: the state in memory, one writer at a time, each write saved before it
// is answered, and the swarm-scope events. Every swarm service reads and writes through it.
import { NotAcceptableError, UnavailableError } from '../../api/errors';
import type { SwarmObjectMeta } from '../../api/swarm-types';
import type { EventsService } from '../events/events-service';
import { ClusterStateFile, type ClusterState } from './cluster-state';
import { swarmTimestamp } from './swarm-ids';

export const notInSwarmMessage =
  'This node is not a swarm manager. Use "docker swarm init" or "docker swarm join" to connect this node to swarm and try again.';
export const lockedMessage =
  'Swarm is encrypted and needs to be unlocked before it can be used. Please use "docker swarm unlock" to unlock it.';

type SwarmEventType = 'service' | 'node' | 'secret' | 'config';

export class Cluster {
  private state?: ClusterState;
  private lockedOnDisk = false;
  private queue: Promise<unknown> = Promise.resolve();
  /** Called after each write that may change what should run (the reconciler's wake-up). */
  onChange: () => void = () => undefined;

  constructor(
    readonly file: ClusterStateFile,
    private readonly events: EventsService,
  ) {}

  async init(): Promise<void> {
    const loaded = await this.file.load();
    if (loaded.kind === 'open') this.state = loaded.state;
    this.lockedOnDisk = loaded.kind === 'locked';
  }

  get locked(): boolean {
    return this.lockedOnDisk;
  }

  get active(): boolean {
    return !!this.state;
  }

  /** The state, or the error a swarm request gets on an engine outside a swarm (or locked). */
  current(): ClusterState {
    if (this.lockedOnDisk) throw new UnavailableError(lockedMessage);
    if (!this.state) throw new NotAcceptableError(notInSwarmMessage);
    return this.state;
  }

  /** The state when there is one open, for callers that do nothing outside a swarm. */
  peek(): ClusterState | undefined {
    return this.state;
  }

  opened(state: ClusterState): void {
    this.state = state;
    this.lockedOnDisk = false;
  }

  /**
   * Runs `fn` alone on the state and saves what it changed before answering; `notify` wakes
   * the reconciler after (its own passes do not wake themselves).
   */
  write<T>(fn: (state: ClusterState) => T | Promise<T>, notify = true): Promise<T> {
    const run = this.queue.then(async () => {
      const state = this.current();
      const result = await fn(state);
      await this.file.save(state);
      return result;
    });
    this.queue = run.catch(() => undefined);
    if (notify) void run.then(() => this.onChange()).catch(() => undefined);
    return run;
  }

  /** The state made or replaced by `fn` (init, force-new-cluster), saved. */
  replace(fn: () => Promise<ClusterState | undefined>): Promise<void> {
    const run = this.queue.then(async () => {
      const next = await fn();
      if (next) await this.file.save(next);
      else await this.file.remove();
      this.state = next;
      this.lockedOnDisk = false;
    });
    this.queue = run.catch(() => undefined);
    void run.then(() => this.onChange()).catch(() => undefined);
    return run;
  }

  /** A new object's meta, its version the next index. */
  newMeta(state: ClusterState, id: string): SwarmObjectMeta {
    const now = swarmTimestamp();
    return { ID: id, Version: { Index: ++state.index }, CreatedAt: now, UpdatedAt: now };
  }

  /** Marks an object written now, with the next version. */
  touch(state: ClusterState, object: SwarmObjectMeta): void {
    object.Version = { Index: ++state.index };
    object.UpdatedAt = swarmTimestamp();
  }

  publish(type: SwarmEventType, action: string, id: string, attributes: Record<string, string>): void {
    this.events.publish(type, action, { id, attributes }, 'swarm');
  }
}
