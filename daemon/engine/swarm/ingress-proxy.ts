// Ingress on one node without IPVS: each published port of mode ingress is one listener on the
// host that forwards to one of the service's running tasks, in turn, as the routing mesh
// spreads them: each TCP connection, or each UDP client (its datagrams and the answers, until
// it is quiet for a while). Tasks themselves publish only their host-mode ports.
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { createServer, connect, type Server } from 'node:net';
import type { Logger } from '../../lib/logger';

/** What should listen: `port/tcp` or `port/udp` → the task addresses (`ip:port`) to forward to. */
export type IngressTable = Map<string, string[]>;

/** How long a UDP client's flow to its task lasts without a datagram either way. */
const udpIdleMs = 30_000;

interface Listener {
  backends: string[];
  next: number;
  close(): void;
}

function pick(listener: Listener): { host: string; port: number } | undefined {
  const target = listener.backends[listener.next++ % Math.max(1, listener.backends.length)];
  if (!target) return undefined;
  const [host, port] = target.split(':');
  return { host, port: Number(port) };
}

function tcpListener(listener: Listener): Server {
  // Half-open both ways: a client that ends its request still reads the answer.
  const server = createServer({ allowHalfOpen: true });
  server.on('connection', (socket) => {
    const target = pick(listener);
    if (!target) return socket.destroy();
    const upstream = connect({ ...target, allowHalfOpen: true });
    socket.pipe(upstream).pipe(socket);
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    for (const s of [socket, upstream]) {
      s.on('error', close);
      s.on('close', close);
    }
  });
  return server;
}

function udpListener(listener: Listener): Socket {
  const socket = createSocket('udp4');
  const flows = new Map<string, { upstream: Socket; connected: Promise<void>; timer: NodeJS.Timeout }>();
  const end = (key: string) => {
    const flow = flows.get(key);
    flows.delete(key);
    flow?.upstream.close();
  };
  socket.on('message', (msg, client: RemoteInfo) => {
    const key = `${client.address}:${client.port}`;
    let flow = flows.get(key);
    if (!flow) {
      const target = pick(listener);
      if (!target) return;
      const upstream = createSocket('udp4');
      upstream.on('message', (answer) => {
        socket.send(answer, client.port, client.address);
        flow?.timer.refresh();
      });
      upstream.on('error', () => end(key));
      const connected = new Promise<void>((resolve) => upstream.connect(target.port, target.host, resolve));
      flow = { upstream, connected, timer: setTimeout(() => end(key), udpIdleMs).unref() };
      flows.set(key, flow);
    }
    flow.timer.refresh();
    const { upstream } = flow;
    // A datagram that comes before the connect completes waits for it.
    void flow.connected.then(() => {
      // The flow may have ended meanwhile: its socket is closed then.
      if (flows.get(key)?.upstream === upstream) upstream.send(msg, () => undefined);
    });
  });
  socket.on('close', () => {
    for (const key of [...flows.keys()]) end(key);
  });
  return socket;
}

export class IngressProxy {
  private readonly listeners = new Map<string, Listener>();

  constructor(private readonly log: Logger) {}

  /** Opens, updates and closes listeners so that they are exactly the table's. */
  async sync(table: IngressTable): Promise<void> {
    for (const [key, l] of this.listeners) {
      if (!table.has(key)) {
        this.listeners.delete(key);
        l.close();
      }
    }
    for (const [key, backends] of table) {
      const existing = this.listeners.get(key);
      if (existing) {
        existing.backends = backends;
        continue;
      }
      const [port, protocol] = key.split('/');
      const listener: Listener = { backends, next: 0, close: () => undefined };
      const listening = await new Promise<boolean>((resolve) => {
        const failed = (err: Error) => {
          this.log.warn('ingress port not published', { port: key, error: err.message });
          resolve(false);
        };
        if (protocol === 'udp') {
          const socket = udpListener(listener);
          listener.close = () => socket.close();
          socket.once('error', failed);
          socket.bind(Number(port), () => resolve(true));
        } else {
          const server = tcpListener(listener);
          listener.close = () => server.close();
          server.once('error', failed);
          server.listen(Number(port), () => resolve(true));
        }
      });
      if (listening) this.listeners.set(key, listener);
    }
  }

  close(): Promise<void> {
    return this.sync(new Map());
  }
}
