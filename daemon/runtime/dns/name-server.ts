// A small DNS server for a user network, listening on its gateway address: A questions for names
// the network knows (containers, aliases, short IDs) are answered from a lookup; every other
// question is forwarded as it came to the host's resolvers and their answer relayed.
import { createSocket, type Socket } from 'node:dgram';

const TYPE_A = 1;
const CLASS_IN = 1;
const forwardTimeoutMs = 3000;

/** The first question's name and type, and where the question section ends. */
function parseQuestion(msg: Buffer): { name: string; type: number; end: number } | undefined {
  if (msg.length < 12 || msg.readUInt16BE(4) < 1) return undefined;
  const labels: string[] = [];
  let at = 12;
  while (at < msg.length) {
    const len = msg[at];
    if (len === 0) break;
    // Compression pointers never appear in a question's first name; refuse what is malformed.
    if (len > 63 || at + 1 + len > msg.length) return undefined;
    labels.push(msg.subarray(at + 1, at + 1 + len).toString('latin1'));
    at += 1 + len;
  }
  if (at + 5 > msg.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: msg.readUInt16BE(at + 1), end: at + 5 };
}

function answer(query: Buffer, q: { end: number }, addresses: string[], rcode: number): Buffer {
  const header = Buffer.from(query.subarray(0, 12));
  // QR=1, opcode copied, AA=1, RD copied, RA=1, rcode.
  header[2] = 0x84 | (query[2] & 0x79);
  header[3] = 0x80 | rcode;
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  header.writeUInt16BE(0, 8);
  header.writeUInt16BE(0, 10);
  const records = addresses.map((ip) => {
    const rr = Buffer.alloc(16);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(TYPE_A, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(600, 6);
    rr.writeUInt16BE(4, 10);
    ip.split('.').forEach((part, i) => (rr[12 + i] = Number(part)));
    return rr;
  });
  return Buffer.concat([header, query.subarray(12, q.end), ...records]);
}

export class NameServer {
  private readonly socket: Socket;

  private constructor(
    socket: Socket,
    private readonly lookup: (name: string) => string[] | undefined,
    private readonly upstreams: string[],
  ) {
    this.socket = socket;
    socket.on('message', (msg, from) => void this.handle(msg, from));
  }

  static listen(
    address: string,
    lookup: (name: string) => string[] | undefined,
    upstreams: string[],
  ): Promise<NameServer> {
    return new Promise((resolve, reject) => {
      const socket = createSocket('udp4');
      socket.once('error', reject);
      socket.bind(53, address, () => {
        socket.removeListener('error', reject);
        // A bad packet or a peer that went away must not end the server.
        socket.on('error', () => undefined);
        resolve(new NameServer(socket, lookup, upstreams));
      });
    });
  }

  private async handle(msg: Buffer, from: { address: string; port: number }): Promise<void> {
    const q = parseQuestion(msg);
    if (!q) return;
    const known = this.lookup(q.name);
    if (known) {
      // A name the network knows: its addresses for A, an empty answer for other types.
      this.socket.send(answer(msg, q, q.type === TYPE_A ? known : [], 0), from.port, from.address);
      return;
    }
    const relayed = await this.forward(msg);
    // No resolver answered: SERVFAIL, so the client tries its next option at once.
    this.socket.send(relayed ?? answer(msg, q, [], 2), from.port, from.address);
  }

  private forward(msg: Buffer): Promise<Buffer | undefined> {
    const upstream = this.upstreams[0];
    if (!upstream) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const s = createSocket('udp4');
      const done = (reply?: Buffer) => {
        clearTimeout(timer);
        s.close();
        resolve(reply);
      };
      const timer = setTimeout(() => done(undefined), forwardTimeoutMs);
      s.on('error', () => done(undefined));
      s.on('message', (reply) => done(reply));
      s.send(msg, 53, upstream);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.socket.close(() => resolve()));
  }
}
