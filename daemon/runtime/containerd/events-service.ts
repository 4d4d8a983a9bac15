// containerd's event stream, with the /tasks/* payloads decoded.
import { status as GrpcStatus, type ClientReadableStream } from '@grpc/grpc-js';
import { decodedTypeName } from './any';
import { fromGrpcError, grpcCode } from './grpc-errors';
import type { Rpc } from './rpc';
import { toDate, type WireTimestamp } from './types';

export type TaskEvent =
  | { type: 'TaskStart'; containerId: string; pid: number }
  | {
      type: 'TaskExit';
      containerId: string;
      id: string;
      pid: number;
      exitStatus: number;
      exitedAt: Date | undefined;
    }
  | {
      type: 'TaskDelete';
      containerId: string;
      id: string;
      pid: number;
      exitStatus: number;
      exitedAt: Date | undefined;
    }
  | { type: 'TaskOOM'; containerId: string }
  | { type: 'TaskPaused'; containerId: string }
  | { type: 'TaskResumed'; containerId: string }
  | { type: 'TaskExecAdded'; containerId: string; execId: string }
  | { type: 'TaskExecStarted'; containerId: string; execId: string; pid: number };

const taskEventTypes = new Set<string>([
  'TaskStart',
  'TaskExit',
  'TaskDelete',
  'TaskOOM',
  'TaskPaused',
  'TaskResumed',
  'TaskExecAdded',
  'TaskExecStarted',
]);

export interface EventEnvelope {
  timestamp: Date | undefined;
  namespace: string;
  /** e.g. "/tasks/exit", "/containers/create", "/images/delete". */
  topic: string;
  /** The decoded payload for the /tasks/* topics; undefined for the others. */
  event: TaskEvent | undefined;
}

interface WireEnvelope {
  timestamp: WireTimestamp | null;
  namespace: string;
  topic: string;
  event: unknown;
}

function decodeTaskEvent(any: unknown): TaskEvent | undefined {
  const name = decodedTypeName(any);
  const prefix = 'containerd.events.';
  if (!name?.startsWith(prefix) || !taskEventTypes.has(name.slice(prefix.length))) return undefined;
  const { '@type': _type, ...fields } = any as Record<string, unknown>;
  const exitedAt = fields.exitedAt as WireTimestamp | null | undefined;
  return {
    ...fields,
    ...(exitedAt !== undefined ? { exitedAt: toDate(exitedAt) } : {}),
    type: name.slice(prefix.length),
  } as TaskEvent;
}

/** A filter matching one topic exactly, e.g. topicFilter('/tasks/exit'). */
export function topicFilter(topic: string): string {
  return `topic==${JSON.stringify(topic)}`;
}

/** A live subscription: iterate it for envelopes; `close()` ends the iteration cleanly. */
export class ContainerdEventSubscription implements AsyncIterable<EventEnvelope> {
  private closed = false;
  private failure: unknown;

  constructor(private readonly call: ClientReadableStream<unknown>) {
    // The stream can fail before anyone reads it (containerd gone while svcd reconciles after
    // subscribing again): an 'error' with no listener would end the process, so it is kept for
    // the reader.
    call.on('error', (err) => (this.failure ??= err));
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<EventEnvelope> {
    try {
      if (this.failure) throw this.failure;
      for await (const message of this.call) {
        const env = message as WireEnvelope;
        yield {
          timestamp: toDate(env.timestamp),
          namespace: env.namespace,
          topic: env.topic,
          event: decodeTaskEvent(env.event),
        };
      }
    } catch (err) {
      if (this.closed && grpcCode(err) === GrpcStatus.CANCELLED) return;
      // UNAVAILABLE here means containerd went away: subscribe again once it is back.
      throw fromGrpcError(err, 'Events.Subscribe');
    }
  }

  close(): void {
    this.closed = true;
    this.call.cancel();
  }
}

const service = 'events.v1.Events';

export class ContainerdEventsService {
  constructor(private readonly rpc: Rpc) {}

  /**
   * Subscribes to events of this client's namespace. Each filter (containerd syntax, e.g.
   * topicFilter('/tasks/exit')) is scoped to the namespace; several filters are ORed.
   */
  subscribe(filters: string[] = []): ContainerdEventSubscription {
    const scope = `namespace==${this.rpc.namespace}`;
    const scoped = filters.length === 0 ? [scope] : filters.map((f) => `${scope},${f}`);
    return new ContainerdEventSubscription(
      this.rpc.openServerStream(service, 'Subscribe', { filters: scoped }),
    );
  }
}
