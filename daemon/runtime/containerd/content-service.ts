// containerd's content store: blobs addressed by digest, written through ingest refs.
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import { fromGrpcError, grpcCode } from './grpc-errors';
import type { Rpc } from './rpc';
import { readStaged, stageBlob, type LocalContentPaths, type StagedBlob } from './local-content';
import { toDate, type Labels, type WireTimestamp } from './types';
import { status as GrpcStatus, type ClientDuplexStream } from '@grpc/grpc-js';

export interface ContentInfo {
  digest: string;
  size: number;
  createdAt: Date | undefined;
  updatedAt: Date | undefined;
  labels: Labels;
}

/** An ingest in progress (a write not yet committed). */
export interface IngestStatus {
  ref: string;
  offset: number;
  total: number;
  expected: string;
  startedAt: Date | undefined;
  updatedAt: Date | undefined;
}

export interface WriteOptions {
  /** The digest containerd verifies at commit; a mismatch fails the write and keeps nothing. */
  expected: string;
  /** The exact size in bytes, also verified at commit. */
  size: number;
  labels?: Labels;
  /** Cancels the write; the ingest is aborted and the signal's reason thrown. */
  signal?: AbortSignal;
}

export interface WriteResult {
  digest: string;
  size: number;
  /** True when the blob was already in the store, so nothing was written. */
  existed: boolean;
}

type WireInfo = Omit<ContentInfo, 'createdAt' | 'updatedAt'> & {
  createdAt: WireTimestamp;
  updatedAt: WireTimestamp;
};
type WireStatus = Omit<IngestStatus, 'startedAt' | 'updatedAt'> & {
  startedAt: WireTimestamp;
  updatedAt: WireTimestamp;
};

function toInfo(i: WireInfo): ContentInfo {
  return { ...i, createdAt: toDate(i.createdAt), updatedAt: toDate(i.updatedAt) };
}
function toStatus(s: WireStatus): IngestStatus {
  return { ...s, startedAt: toDate(s.startedAt), updatedAt: toDate(s.updatedAt) };
}

interface WriteRequest {
  action: 'STAT' | 'WRITE' | 'COMMIT';
  ref: string;
  total?: number;
  expected?: string;
  offset?: number;
  /** WRITE's bytes, in the pieces they arrived in (see encodeWrite). */
  data?: Uint8Array[];
  labels?: Labels;
}
interface WriteResponse {
  action: 'STAT' | 'WRITE' | 'COMMIT';
  offset: number;
  total: number;
  digest: string;
}

/**
 * Size of the data messages sent. containerd answers every WRITE and spends per message (a
 * response, a goroutine wake-up, garbage for its GC), so the 16-64 KiB chunks HTTP bodies arrive
 * in went slowly (~75 MB/s, against ~120 with larger messages). 512 KiB with one message in
 * flight pulls ~10% faster than 256 KiB with two, for the same memory; 1 MiB gained a little
 * more but svcd peaked ~10 MiB higher (each message and its gRPC frame is a fresh allocation).
 */
const messageSize = 512 * 1024;
/** Bytes written to the stream but not yet handed to the transport: what one write may hold. */
const maxInFlight = messageSize;
const service = 'content.v1.Content';

export class ContentService {
  constructor(
    private readonly rpc: Rpc,
    /** Set when containerd runs on this machine with its store at these paths (local-content.ts). */
    private readonly local?: LocalContentPaths,
  ) {}

  async info(digest: string): Promise<ContentInfo> {
    const res = await this.rpc.unary<{ info: WireInfo }>(service, 'Info', { digest });
    return toInfo(res.info);
  }

  async list(filters: string[] = []): Promise<ContentInfo[]> {
    const all: ContentInfo[] = [];
    for await (const page of this.rpc.serverStream<{ info: WireInfo[] }>(service, 'List', { filters })) {
      all.push(...page.info.map(toInfo));
    }
    return all;
  }

  /** Replaces the labels of a blob (labels keep it from garbage collection, e.g. gc.ref.*). */
  async setLabels(digest: string, labels: Labels): Promise<ContentInfo> {
    const res = await this.rpc.unary<{ info: WireInfo }>(service, 'Update', {
      info: { digest, labels },
      updateMask: { paths: ['labels'] },
    });
    return toInfo(res.info);
  }

  async delete(digest: string): Promise<void> {
    await this.rpc.unary(service, 'Delete', { digest });
  }

  /** Streams a blob (or `size` bytes of it from `offset`); errors surface on the stream. */
  read(digest: string, opts: { offset?: number; size?: number } = {}): Readable {
    const messages = this.rpc.serverStream<{ data: Buffer }>(service, 'Read', {
      digest,
      offset: opts.offset ?? 0,
      size: opts.size ?? 0,
    });
    return Readable.from(
      (async function* () {
        for await (const message of messages) if (message.data.length > 0) yield message.data;
      })(),
      { objectMode: false },
    );
  }

  /**
   * A blob's bytes, known to be in this namespace: from its file when containerd's store is on
   * this machine (no copy through gRPC), else streamed by containerd.
   */
  async open(digest: string): Promise<Readable> {
    await this.info(digest);
    const hex = this.local && /^sha256:([0-9a-f]{64})$/.exec(digest)?.[1];
    if (!hex) return this.read(digest);
    return createReadStream(path.join(this.local!.store, 'blobs', 'sha256', hex), {
      highWaterMark: 512 * 1024,
    });
  }

  async readAll(digest: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of this.read(digest)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async status(ref: string): Promise<IngestStatus> {
    const res = await this.rpc.unary<{ status: WireStatus | null }>(service, 'Status', { ref });
    if (!res.status) throw new NotFoundError(`no ingest ${ref}`);
    return toStatus(res.status);
  }

  async listStatuses(filters: string[] = []): Promise<IngestStatus[]> {
    const res = await this.rpc.unary<{ statuses: WireStatus[] }>(service, 'ListStatuses', { filters });
    return res.statuses.map(toStatus);
  }

  /** Drops an ingest in progress; no error when there is none. */
  async abort(ref: string): Promise<void> {
    try {
      await this.rpc.unary(service, 'Abort', { ref });
    } catch (err) {
      if (!(err instanceof NotFoundError)) throw err;
    }
  }

  /**
   * Writes a blob under the ingest `ref` and commits it; containerd checks the digest and size.
   * Any failure aborts the ingest, so nothing is left behind. Use a client with a lease
   * (`withLease`) so the new blob is not garbage collected before something references it.
   */
  async write(
    ref: string,
    source: Buffer | AsyncIterable<Buffer | Uint8Array>,
    opts: WriteOptions,
  ): Promise<WriteResult> {
    if (!ref) throw new InvalidParameterError('content write needs a ref');
    opts.signal?.throwIfAborted();
    if (!this.local || Buffer.isBuffer(source) || !opts.expected.startsWith('sha256:')) {
      return this.send(ref, source, opts);
    }
    // Listening from the start: a source whose producer an abort ends without an error (a piped
    // body) would otherwise leave the staging loop waiting for bytes that never come.
    // The abort ends the stream whatever reads it: one not yet iterated has no listener for the
    // error, which would otherwise be an uncaught 'error' event (the staging loop sees it anyway).
    const stop = () => {
      if (!(source instanceof Readable)) return;
      source.on('error', () => {});
      source.destroy(opts.signal?.reason);
    };
    opts.signal?.addEventListener('abort', stop, { once: true });
    let staged: StagedBlob;
    try {
      // Known already: the bytes are not read, as when containerd answers STAT with AlreadyExists.
      if (
        await this.info(opts.expected).then(
          () => true,
          (err) => !(err instanceof NotFoundError) && Promise.reject(err),
        )
      ) {
        if (source instanceof Readable) source.destroy();
        return { digest: opts.expected, size: opts.size, existed: true };
      }
      opts.signal?.throwIfAborted();
      staged = await stageBlob(this.local, source, opts.expected, opts.size, opts.signal);
    } finally {
      opts.signal?.removeEventListener('abort', stop);
    }
    try {
      return await this.send(ref, () => readStaged(staged), opts, staged.placed);
    } finally {
      await staged.release();
    }
  }

  /**
   * The Write session. With `placed`, the blob's file is in the store already, and containerd,
   * answering STAT with the whole size, commits it unread; otherwise the source is sent.
   */
  private async send(
    ref: string,
    source: Buffer | AsyncIterable<Buffer | Uint8Array> | (() => Readable),
    opts: WriteOptions,
    placed = false,
  ): Promise<WriteResult> {
    const { signal } = opts;
    const call = this.rpc.duplex<WriteRequest, WriteResponse>(service, 'Write', encodeWrite);
    const session = new WriteSession(call);
    // Ends a write in progress; the source is destroyed without an error, which a source nobody
    // listens to for errors (a Readable.from of a buffer) would throw as uncaught.
    const stop = () => {
      session.fail(signal?.reason);
      if (source instanceof Readable) source.destroy();
    };
    try {
      await session.send({ action: 'STAT', ref, total: opts.size, expected: opts.expected });
      const stat = await session.response();
      // Cancellation waits for STAT's answer: only then has containerd opened the ingest, so an
      // Abort sent earlier could come first and leave the ingest opened after it behind.
      signal?.throwIfAborted();
      signal?.addEventListener('abort', stop, { once: true });
      let offset = 0;
      if (placed && stat.offset === opts.size) offset = opts.size;
      else {
        if (typeof source === 'function') source = source();
        for await (const { data, size } of messages(Buffer.isBuffer(source) ? [source] : source)) {
          await session.send({ action: 'WRITE', ref, offset, data }, size);
          offset += size;
        }
      }
      await session.send({
        action: 'COMMIT',
        ref,
        offset,
        total: opts.size,
        expected: opts.expected,
        labels: opts.labels,
      });
      const committed = await session.commit();
      return { digest: committed.digest || opts.expected, size: offset, existed: false };
    } catch (err) {
      call.cancel();
      if (source instanceof Readable) source.destroy();
      if (grpcCode(err) === GrpcStatus.ALREADY_EXISTS) {
        return { digest: opts.expected, size: opts.size, existed: true };
      }
      await this.abort(ref).catch(() => undefined);
      throw signal?.aborted ? signal.reason : err;
    } finally {
      signal?.removeEventListener('abort', stop);
    }
  }
}

/** Regroups a byte stream into messages of `messageSize` bytes (the last one shorter), uncopied. */
async function* messages(
  source: Iterable<Buffer> | AsyncIterable<Buffer | Uint8Array>,
): AsyncGenerator<{ data: Uint8Array[]; size: number }> {
  let data: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of source) {
    for (let at = 0; at < chunk.length;) {
      const take = Math.min(chunk.length - at, messageSize - size);
      data.push(chunk.subarray(at, at + take));
      size += take;
      at += take;
      if (size === messageSize) {
        yield { data, size };
        data = [];
        size = 0;
      }
    }
  }
  if (size > 0) yield { data, size };
}

/**
 * Encodes a WriteContentRequest with its data pieces copied once, straight into the message: the
 * generated encoding of the other fields, then field 6 (protobuf fields may come in any order).
 * A concat then an encode made twice the garbage, and the garbage is what svcd's memory peaks on.
 */
function encodeWrite(req: WriteRequest, encode: (req: object) => Buffer): Buffer {
  const { data, ...rest } = req;
  const head = encode(rest);
  if (!data) return head;
  const size = data.reduce((sum, piece) => sum + piece.length, 0);
  const key = [(6 << 3) | 2]; // field 6, length-delimited
  for (let left = size; ; left >>>= 7) {
    if (left < 0x80) {
      key.push(left);
      break;
    }
    key.push((left & 0x7f) | 0x80);
  }
  const out = Buffer.allocUnsafe(head.length + key.length + size);
  head.copy(out);
  out.set(key, head.length);
  let at = head.length + key.length;
  for (const piece of data) {
    out.set(piece, at);
    at += piece.length;
  }
  return out;
}

/**
 * The Write bidi stream: containerd answers every request in order. Writes are pipelined (we do
 * not wait for each answer) but bounded by what the transport has not taken yet, so a fast
 * source never piles up in memory; the first error answered ends the session.
 */
class WriteSession {
  private readonly pending: WriteResponse[] = [];
  private failure: unknown;
  private ended = false;
  private inFlight = 0;
  private wake: (() => void) | undefined;

  constructor(private readonly call: ClientDuplexStream<WriteRequest, WriteResponse>) {
    call.on('data', (res: WriteResponse) => this.push(() => this.pending.push(res)));
    call.on('error', (err) => this.push(() => (this.failure ??= fromGrpcError(err, 'Content.Write'))));
    call.on('end', () => this.push(() => (this.ended = true)));
  }

  /** Ends the session from our side: what waits on it throws `reason`. */
  fail(reason: unknown): void {
    this.push(() => (this.failure ??= reason));
  }

  private push(update: () => void): void {
    update();
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  async send(req: WriteRequest, size = 0): Promise<void> {
    if (this.failure) throw this.failure;
    this.inFlight += size;
    this.call.write(req, () => this.push(() => (this.inFlight -= size)));
    while (this.inFlight > maxInFlight && !this.failure && !this.ended) await this.next();
    if (this.failure) throw this.failure;
  }

  private next(): Promise<void> {
    return new Promise((resolve) => (this.wake = resolve));
  }

  async response(): Promise<WriteResponse> {
    for (;;) {
      const res = this.pending.shift();
      if (res) return res;
      if (this.failure) throw this.failure;
      if (this.ended) throw new ConflictError('containerd ended the content write early');
      await this.next();
    }
  }

  /** Waits past the answers to earlier writes for the answer to COMMIT, then closes the stream. */
  async commit(): Promise<WriteResponse> {
    for (;;) {
      const res = await this.response();
      if (res.action === 'COMMIT') {
        this.call.end();
        return res;
      }
    }
  }
}
