// The host's loopback for a rootless svcd. Inside rootlesskit's network namespace 127.0.0.1 is
// the namespace's own, and the host's loopback is closed to it (--disable-host-loopback, so that
// containers do not reach it either); yet a registry on the host's 127.0.0.1 is where a user
// pushes and pulls. svcd outside the namespace relays: a unix socket (the file system is shared)
// on which svcd inside names a loopback host and port, gets `ok` or the connect error, then talks.
// svcd inside also keeps one connection open as a lifeline: svcd outside killed (even by SIGKILL),
// it closes, and svcd inside shuts down, so that rootlesskit and its namespace go with it and the
// next svcd can start (rootlesskit would otherwise keep running and hold its state directory).
import http from 'node:http';
import { rm } from 'node:fs/promises';
import { connect, createServer, type Server, type Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { isLoopbackHost } from './loopback-host';

const MAX_HEADER = 256;
const lifeline = 'lifeline';

function relay(client: Socket): void {
  let head = Buffer.alloc(0);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf('\n');
    if (end < 0) {
      if (head.length > MAX_HEADER) client.destroy();
      return;
    }
    client.off('data', onData);
    client.pause();
    const line = head.subarray(0, end).toString('utf8');
    if (line === lifeline) return void client.resume();
    const m = /^(.+):(\d{1,5})$/.exec(line);
    if (!m || !isLoopbackHost(line)) return void client.end('only the host loopback is relayed\n');
    const target = connect({ host: m[1].replace(/^\[|\]$/g, ''), port: Number(m[2]) });
    target.once('error', (err) => client.end(`${err.message}\n`));
    target.once('connect', () => {
      target.removeAllListeners('error');
      target.on('error', () => client.destroy());
      client.on('error', () => target.destroy());
      client.write('ok\n');
      const rest = head.subarray(end + 1);
      if (rest.length > 0) target.write(rest);
      client.pipe(target).pipe(client);
      client.resume();
    });
  };
  client.on('data', onData);
  client.on('error', () => client.destroy());
}

/** Whether a server answers on the unix socket `path`. */
function answers(path: string): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = connect(path);
    probe.once('connect', () => {
      probe.destroy();
      resolve(true);
    });
    probe.once('error', () => resolve(false));
  });
}

/**
 * Outside the namespace: relays connections named on `path` to the host's loopback. A socket
 * left by an svcd that died is replaced; one that answers belongs to an svcd still running.
 */
export async function serveHostLoopback(path: string): Promise<Server> {
  if (await answers(path)) throw new Error(`another svcd is running: ${path} answers`);
  await rm(path, { force: true });
  const server = createServer(relay);
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(path, () => resolve(server));
  });
}

/** Inside the namespace: `onLost` once the relay (svcd outside) is gone. */
export function holdLifeline(path: string, onLost: () => void): void {
  const socket = connect(path);
  socket.write(`${lifeline}\n`);
  socket.on('error', () => undefined);
  socket.once('close', onLost);
  socket.unref();
}

/** Inside the namespace: an agent whose connections go through the relay at `path`. */
export class HostLoopbackAgent extends http.Agent {
  constructor(private readonly path: string) {
    super({ keepAlive: true });
  }

  override createConnection(
    options: http.ClientRequestArgs,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): undefined {
    const socket = connect(this.path);
    const host = options.host?.includes(':') ? `[${options.host}]` : options.host;
    socket.write(`${host}:${options.port ?? 80}\n`);
    let reply = '';
    const fail = (err: Error) => callback?.(err, socket);
    const onData = (chunk: Buffer) => {
      reply += chunk.toString('latin1');
      const end = reply.indexOf('\n');
      if (end < 0) return;
      socket.off('data', onData);
      socket.off('error', fail);
      const answer = reply.slice(0, end);
      if (answer !== 'ok') return fail(new Error(answer));
      // Bytes past the reply are the server's: put back for the HTTP parser.
      if (end + 1 < reply.length) socket.unshift(Buffer.from(reply.slice(end + 1), 'latin1'));
      callback?.(null, socket);
    };
    socket.on('data', onData);
    socket.once('error', fail);
    return undefined;
  }
}
