// Follows containerd's task exit and OOM events. When the stream breaks (containerd restarted)
// it subscribes again and reconciles, so no exit is missed.
import { setTimeout as sleep } from 'node:timers/promises';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { topicFilter, type ContainerdEventSubscription } from '../../runtime/containerd/events-service';
import type { Logger } from '../../lib/logger';

export interface TaskEventHandler {
  exit(containerId: string, exitStatus: number, exitedAt: Date | undefined): void;
  oom(containerId: string): void;
  /** Called after each (re)subscription: compare what svcd believes with containerd's tasks. */
  reconcile(): Promise<void>;
}

export class TaskEventMonitor {
  private subscription?: ContainerdEventSubscription;
  private stopped = false;
  private done?: Promise<void>;

  constructor(
    private readonly client: ContainerdClient,
    private readonly handler: TaskEventHandler,
    private readonly log: Logger,
  ) {}

  /** Subscribes, then resolves; events are handled in the background until stop(). */
  async start(): Promise<void> {
    this.subscribe();
    await this.handler.reconcile();
    this.done = this.loop();
  }

  private subscribe(): ContainerdEventSubscription {
    this.subscription = this.client.events.subscribe([topicFilter('/tasks/exit'), topicFilter('/tasks/oom')]);
    return this.subscription;
  }

  private async loop(): Promise<void> {
    let first = true;
    while (!this.stopped) {
      const sub = first ? this.subscription! : this.subscribe();
      if (!first)
        await this.handler
          .reconcile()
          .catch((err: Error) => this.log.warn('reconcile failed', { error: err.message }));
      first = false;
      try {
        for await (const envelope of sub) {
          const e = envelope.event;
          if (e?.type === 'TaskExit' && e.id === e.containerId)
            this.handler.exit(e.containerId, e.exitStatus, e.exitedAt);
          else if (e?.type === 'TaskOOM') this.handler.oom(e.containerId);
        }
      } catch (err) {
        if (this.stopped) return;
        this.log.warn('containerd event stream broke; subscribing again', { error: (err as Error).message });
      }
      if (!this.stopped) await sleep(500);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.subscription?.close();
    await this.done?.catch(() => undefined);
  }
}
