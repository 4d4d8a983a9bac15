// Ingress on one node without IPVS: each published TCP port of mode ingress is one listener on
// the host that forwards every connection to one of the service's running tasks, in turn, as
// the routing mesh spreads them. Tasks themselves publish only their host-mode ports.
import { createServer, connect, type Server } from 'node:net';
import type { Logger } from '../../lib/logger';

interface Listener {
  server: Server;
  backends: string[];
  next: number;
}

/** What should listen: `port/tcp` → the task addresses (`ip:port`) to forward to. */
export type IngressTable = Map<number, string[]>;

export class IngressProxy {
  private readonly listeners = new Map<number, Listener>();

  constructor(private readonly log: Logger) {}

  /** Opens, updates and closes listeners so that they are exactly the table's. */
  async sync(table: IngressTable): Promise<void> {
    for (const [port, l] of this.listeners) {
      if (!table.has(port)) {
        this.listeners.delete(port);
        l.server.close();
      }
    }
    for (const [port, backends] of table) {
      const existing = this.listeners.get(port);
      if (existing) {
        existing.backends = backends;
        continue;
      }
      // Half-open both ways: a client that ends its request still reads the answer.
      const listener: Listener = { server: createServer({ allowHalfOpen: true }), backends, next: 0 };
      listener.server.on('connection', (socket) => {
        const target = listener.backends[listener.next++ % Math.max(1, listener.backends.length)];
        if (!target) return socket.destroy();
        const [host, targetPort] = target.split(':');
        const upstream = connect({ port: Number(targetPort), host, allowHalfOpen: true });
        socket.pipe(upstream).pipe(socket);
        const close = () => {
          socket.destroy();
          upstream.destroy();
        };
        socket.on('error', close);
        upstream.on('error', close);
        socket.on('close', close);
        upstream.on('close', close);
      });
      const listening = await new Promise<boolean>((resolve) => {
        listener.server.once('error', (err) => {
          this.log.warn('ingress port not published', { port, error: err.message });
          resolve(false);
        });
        listener.server.listen(port, () => resolve(true));
      });
      if (listening) this.listeners.set(port, listener);
    }
  }

  close(): Promise<void> {
    return this.sync(new Map());
  }
}
