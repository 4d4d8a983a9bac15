// A ttrpc client on a unix socket, the protocol containerd's shims serve their task API in: one
// connection carries many calls, each a request frame answered by a response frame of its stream.
import { connect, type Socket } from 'node:net';
import { status as Status } from '@grpc/grpc-js';
import { fromGrpcError } from './grpc-errors';
import { ttrpcService, type TtrpcServiceName } from './proto-definition';

/** Frame header: length (uint32), stream id (uint32), type, flags. */
const headerLength = 10;
const requestFrame = 1;
const responseFrame = 2;

interface WireResponse {
  status: { code: number; message: string } | null;
  payload: Buffer;
}

/** A failed call, shaped as grpc-js's ServiceError so grpc-errors.ts translates both alike. */
class TtrpcError extends Error {
  constructor(
    readonly code: Status,
    readonly details: string,
  ) {
    super(`${Status[code]}: ${details}`);
  }
}

/** The class containerd's errdefs gives each code; what it adds to a shim's error it passes on. */
const codeClasses: Partial<Record<Status, string>> = {
  [Status.INVALID_ARGUMENT]: 'invalid argument',
  [Status.NOT_FOUND]: 'not found',
  [Status.ALREADY_EXISTS]: 'already exists',
  [Status.FAILED_PRECONDITION]: 'failed precondition',
  [Status.UNAVAILABLE]: 'unavailable',
  [Status.UNIMPLEMENTED]: 'not implemented',
  [Status.CANCELLED]: 'context canceled',
  [Status.DEADLINE_EXCEEDED]: 'context deadline exceeded',
};

/** A shim's error in the words containerd relays it in ("…: unknown"), which dockerd shows. */
function asContainerdRelays(code: Status, message: string): string {
  const suffix = `: ${codeClasses[code] ?? 'unknown'}`;
  return message.endsWith(suffix) ? message : `${message}${suffix}`;
}

interface Pending {
  resolve(payload: Buffer): void;
  reject(err: Error): void;
}

export class TtrpcConnection {
  private socket?: Socket;
  private nextStream = 1;
  private readonly pending = new Map<number, Pending>();
  private received: Buffer = Buffer.alloc(0);

  /** `onClose`: the connection is done (the peer went or refused it); a new one is needed. */
  constructor(
    readonly path: string,
    private readonly onClose: () => void,
  ) {}

  /** A unary call; the error of a failed one is translated as a containerd gRPC error is. */
  async call<Res>(service: TtrpcServiceName, method: string, request: object): Promise<Res> {
    const definition = ttrpcService(service)[method];
    const payload = definition.requestSerialize(request);
    try {
      const response = await this.send(service, method, payload);
      return definition.responseDeserialize(response) as Res;
    } catch (err) {
      throw fromGrpcError(err, `shim ${method}`);
    }
  }

  private send(service: string, method: string, payload: Buffer): Promise<Buffer> {
    const socket = this.open();
    const stream = this.nextStream;
    // Client streams are odd.
    this.nextStream = (this.nextStream + 2) >>> 0;
    const body = ttrpcService('ttrpc.Envelope').Call.requestSerialize({ service, method, payload });
    const header = Buffer.alloc(headerLength);
    header.writeUInt32BE(body.length, 0);
    header.writeUInt32BE(stream, 4);
    header[8] = requestFrame;
    return new Promise<Buffer>((resolve, reject) => {
      this.pending.set(stream, { resolve, reject });
      // An idle connection does not keep the process alive; one with a call in flight does.
      socket.ref();
      socket.write(Buffer.concat([header, body]));
    });
  }

  private open(): Socket {
    if (this.socket) return this.socket;
    const socket = connect(this.path);
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', (err) => this.fail(`connect ${this.path}: ${err.message}`));
    socket.on('close', () => this.fail('ttrpc: closed'));
    return socket;
  }

  private receive(chunk: Buffer): void {
    this.received = this.received.length ? Buffer.concat([this.received, chunk]) : chunk;
    while (this.received.length >= headerLength) {
      const length = this.received.readUInt32BE(0);
      if (this.received.length < headerLength + length) return;
      const stream = this.received.readUInt32BE(4);
      const type = this.received[8];
      const body = this.received.subarray(headerLength, headerLength + length);
      this.received = this.received.subarray(headerLength + length);
      const call = this.pending.get(stream);
      if (type !== responseFrame || !call) continue;
      this.pending.delete(stream);
      if (this.pending.size === 0) this.socket?.unref();
      const response = ttrpcService('ttrpc.Envelope').Call.responseDeserialize(body) as WireResponse;
      if (response.status && response.status.code !== Status.OK) {
        const { code, message } = response.status;
        call.reject(new TtrpcError(code, asContainerdRelays(code, message)));
      } else call.resolve(response.payload);
    }
  }

  /** Fails every call in flight and gives the connection up. */
  private fail(details: string): void {
    if (!this.socket) return;
    this.socket.destroy();
    this.socket = undefined;
    this.received = Buffer.alloc(0);
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) call.reject(new TtrpcError(Status.UNAVAILABLE, details));
    this.onClose();
  }

  close(): void {
    this.fail('ttrpc: closed');
  }
}
