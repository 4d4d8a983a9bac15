// A small DNS server for a user network, listening on its gateway address: A and AAAA questions
// for names the network knows (containers, aliases, short IDs) are answered from a lookup; every
// other question is forwarded as it came to the host's resolvers and their answer relayed.
import { createSocket, type Socket } from 'node:dgram';
import { parseIp6 } from '../cni/ipv6';

const TYPE_A = 1;
const TYPE_AAAA = 28;
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

/** A name's addresses, by family. */
export interface KnownName {
  v4: string[];
  v6: string[];
}

/** An answer record's type and data (RDATA) for an address. */
function addressData(ip: string): { type: number; data: Buffer } {
  if (!ip.includes(':')) return { type: TYPE_A, data: Buffer.from(ip.split('.').map(Number)) };
  const data = Buffer.alloc(16);
  const n = parseIp6(ip);
  for (let i = 0; i < 16; i++) data[i] = Number((n >> BigInt(120 - 8 * i)) & 0xffn);
  return { type: TYPE_AAAA, data };
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
    const { type, data } = addressData(ip);
    const rr = Buffer.alloc(12);
    rr.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    rr.writeUInt16BE(type, 2);
    rr.writeUInt16BE(CLASS_IN, 4);
    rr.writeUInt32BE(600, 6);
    rr.writeUInt16BE(data.length, 10);
    return Buffer.concat([rr, data]);
  });
  return Buffer.concat([header, query.subarray(12, q.end), ...records]);
}

export class NameServer {
  private readonly socket: Socket;

  private constructor(
    socket: Socket,
    private readonly lookup: (name: string, from: string) => KnownName | undefined,
    private readonly upstreams: string[],
  ) {
    this.socket = socket;
    socket.on('message', (msg, from) => void this.handle(msg, from));
  }

  static listen(
    address: string,
    lookup: (name: string, from: string) => KnownName | undefined,
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
    const known = this.lookup(q.name, from.address);
    if (known) {
      // A name the network knows: its addresses for A and AAAA, an empty answer for other types.
      const addresses = q.type === TYPE_A ? known.v4 : q.type === TYPE_AAAA ? known.v6 : [];
      this.socket.send(answer(msg, q, addresses, 0), from.port, from.address);
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
