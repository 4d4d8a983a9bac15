// Typed, promise-based calls over one gRPC channel, with containerd's namespace and lease metadata.
import {
  Channel,
  credentials,
  Metadata,
  type Client,
  type ClientDuplexStream,
  type ClientReadableStream,
  type ClientUnaryCall,
  type ServiceError,
} from '@grpc/grpc-js';
import { fromGrpcError } from './grpc-errors';
import { serviceConstructor, type ServiceName } from './proto-definition';

type UnaryMethod = (
  request: unknown,
  metadata: Metadata,
  callback: (err: ServiceError | null, response: unknown) => void,
) => ClientUnaryCall;
type ServerStreamMethod = (request: unknown, metadata: Metadata) => ClientReadableStream<unknown>;
type DuplexMethod = (metadata: Metadata) => ClientDuplexStream<unknown, unknown>;

/** One channel to containerd and a lazily created client per service on it. */
export class Connection {
  private readonly channel: Channel;
  private readonly clients = new Map<ServiceName, Client>();

  constructor(readonly address: string) {
    // containerd restarts are normal (svcd supervises it): reconnect quickly instead of the
    // default backoff that grows to two minutes.
    this.channel = new Channel(toGrpcTarget(address), credentials.createInsecure(), {
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      'grpc.max_receive_message_length': 64 * 1024 * 1024,
      'grpc.max_send_message_length': 64 * 1024 * 1024,
    });
  }

  client(service: ServiceName): Client {
    let client = this.clients.get(service);
    if (!client) {
      const Ctor = serviceConstructor(service);
      client = new Ctor(toGrpcTarget(this.address), credentials.createInsecure(), {
        channelOverride: this.channel,
      });
      this.clients.set(service, client);
    }
    return client;
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.channel.close();
  }
}

/** "Tasks.Create" from 'tasks.v1.Tasks' and 'Create', for error messages. */
export function operationName(service: ServiceName, method: string): string {
  return `${service.slice(service.lastIndexOf('.') + 1)}.${method}`;
}

/** Accepts a bare socket path, `unix:/path` or `unix:///path`. */
function toGrpcTarget(address: string): string {
  return address.startsWith('unix:') ? address : `unix:${address}`;
}

/** The calls of one client view: a connection plus the namespace and optional lease it acts in. */
export class Rpc {
  constructor(
    readonly connection: Connection,
    readonly namespace: string,
    readonly lease?: string,
  ) {}

  metadata(): Metadata {
    const md = new Metadata();
    md.set('containerd-namespace', this.namespace);
    if (this.lease) md.set('containerd-lease', this.lease);
    return md;
  }

  private method<M>(service: ServiceName, method: string): M {
    const client = this.connection.client(service) as unknown as Record<string, M>;
    return (client[method] as unknown as { bind(c: unknown): M }).bind(client);
  }

  /** A unary call; `signal` cancels it (used for Wait, which lasts as long as the process). */
  unary<Res>(service: ServiceName, method: string, request: object, signal?: AbortSignal): Promise<Res> {
    const call = this.method<UnaryMethod>(service, method);
    return new Promise<Res>((resolve, reject) => {
      const onAbort = () => handle.cancel();
      const handle = call(request, this.metadata(), (err, response) => {
        signal?.removeEventListener('abort', onAbort);
        if (err) reject(fromGrpcError(err, operationName(service, method)));
        else resolve(response as Res);
      });
      if (signal?.aborted) handle.cancel();
      else signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** A server stream as an async iterable of messages; errors arrive translated. */
  async *serverStream<Res>(service: ServiceName, method: string, request: object): AsyncGenerator<Res> {
    const call = this.method<ServerStreamMethod>(service, method)(request, this.metadata());
    try {
      for await (const message of call) yield message as Res;
    } catch (err) {
      throw fromGrpcError(err, operationName(service, method));
    } finally {
      call.cancel();
    }
  }

  /** Opens a raw server stream, for callers that need to cancel it from outside (events). */
  openServerStream(service: ServiceName, method: string, request: object): ClientReadableStream<unknown> {
    return this.method<ServerStreamMethod>(service, method)(request, this.metadata());
  }

  /** A bidi stream; `serialize` replaces the generated request encoder (given as `encode`). */
  duplex<Req, Res>(
    service: ServiceName,
    method: string,
    serialize?: (req: Req, encode: (req: object) => Buffer) => Buffer,
  ): ClientDuplexStream<Req, Res> {
    if (!serialize) {
      return this.method<DuplexMethod>(service, method)(this.metadata()) as ClientDuplexStream<Req, Res>;
    }
    const definition = serviceConstructor(service).service[method];
    const encode = definition.requestSerialize as (req: object) => Buffer;
    return this.connection
      .client(service)
      .makeBidiStreamRequest(
        definition.path,
        (req: Req) => serialize(req, encode),
        definition.responseDeserialize as (bytes: Buffer) => Res,
        this.metadata(),
      );
  }
}
