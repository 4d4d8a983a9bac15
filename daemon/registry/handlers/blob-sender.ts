// Writes a byte range of a stored blob to a response. A local file going to a plain TCP or unix
// socket is handed to the native sender's thread, which writes it from a mapping of the file: no
// byte passes through Node. An object store's range is one ranged GET: over plain HTTP on both sides its
// socket is spliced to the client's on that same thread, else its answer is piped to the client
// at its pace (a request per 1 MiB piece halved S3 pull rates). Otherwise (a local file under
// TLS) reads run a few pieces ahead of the socket into pooled buffers, and a buffer goes back to
// the pool only once the kernel has its bytes (the write callback), so every response respects
// backpressure and no piece is ever allocated anew.
import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { BufferPool } from '../../lib/buffer-pool';
import { relaySocket, sendFile, type Transfer } from '../native/blob-transfer';
import type { RandomReader, SocketBody } from '../storage/driver';

// Measured on loopback with 1 to 32 clients: 1 MiB pieces three deep beat larger pieces and
// fewer reads ahead (the thread pool's latency is hidden) and match blocking reads from the page
// cache. Sixteen buffers bound what all pulls together hold to 16 MiB.
const pieceSize = 1 << 20;
const readAhead = 3;
const pool = new BufferPool(pieceSize, 16, 4);

interface Piece {
  buffer: Buffer;
  bytes: Buffer;
}

async function readPiece(file: RandomReader, position: number, length: number): Promise<Piece> {
  const buffer = await pool.take();
  try {
    const bytes = buffer.subarray(0, length);
    const count = await file.read(bytes, position);
    if (count !== length)
      throw new Error(`blob shorter than its size: ${count} of ${length} bytes at ${position}`);
    return { buffer, bytes };
  } catch (err) {
    pool.give(buffer);
    throw err;
  }
}

function written(res: ServerResponse, bytes: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    if (res.destroyed) return reject(new Error('the client went away'));
    const onClose = (): void => reject(new Error('the client went away'));
    res.once('close', onClose);
    res.write(bytes, (err) => {
      res.off('close', onClose);
      if (err) reject(err);
      else resolve();
    });
  });
}

const noIdleLimit = 2 ** 31 - 1;

/** The socket's descriptor when its bytes go out as they are (not through TLS). */
function plainSocketFd(socket: Socket | null): number | undefined {
  if (!socket || 'encrypted' in socket) return undefined;
  const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
  return typeof fd === 'number' && fd >= 0 ? fd : undefined;
}

/** Resolves once everything written to the socket so far (the headers) is in the kernel. */
function flushed(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => socket.write('', (err) => (err ? reject(err) : resolve())));
}

/**
 * The body moved by the native sender's thread (`start` hands it over with the client's idle
 * limit), after the headers and any bytes already in hand (`first`) are in the kernel.
 */
async function sendByKernel(
  res: ServerResponse,
  socket: Socket,
  first: Buffer | undefined,
  start: (idleMs: number) => Transfer,
): Promise<void> {
  res.flushHeaders();
  if (first?.length) await written(res, first);
  await flushed(socket);
  // Node sees no traffic on its socket while the kernel sends: its idle timeout would cut the
  // transfer, so the sender's thread applies it instead, to the client's progress.
  const timeout = socket.timeout ?? 0;
  socket.setTimeout(0);
  const transfer = start(timeout || noIdleLimit);
  const onClose = (): void => transfer.cancel();
  res.once('close', onClose);
  try {
    await transfer.done;
  } catch (err) {
    // Part of the body is out: the response cannot be finished, only cut.
    res.destroy();
    throw err;
  } finally {
    res.off('close', onClose);
    socket.setTimeout(timeout);
  }
  res.end();
}

/** An object store's answer spliced from its socket to the client's. */
async function sendByRelay(
  res: ServerResponse,
  socket: Socket,
  socketFd: number,
  body: SocketBody,
): Promise<void> {
  try {
    const sourceFd = plainSocketFd(body.socket);
    if (sourceFd === undefined) throw new Error("the store's connection has no descriptor");
    if (body.rest === 0) {
      res.end(body.first);
      return;
    }
    await sendByKernel(res, socket, body.first, (idleMs) =>
      relaySocket(socketFd, sourceFd, body.rest, idleMs),
    );
  } finally {
    body.socket.destroy();
  }
}

async function sendByReads(
  res: ServerResponse,
  file: RandomReader,
  start: number,
  end: number,
): Promise<void> {
  const reads: Promise<Piece>[] = [];
  let next = start;
  const readNext = (): void => {
    if (next > end) return;
    const length = Math.min(pieceSize, end - next + 1);
    const read = readPiece(file, next, length);
    // Handled now, so a failure while an earlier piece is being written is not "unhandled".
    read.catch(() => undefined);
    reads.push(read);
    next += length;
  };
  try {
    for (let i = 0; i < readAhead; i++) readNext();
    while (reads.length > 0) {
      const piece = await reads.shift()!;
      readNext();
      try {
        await written(res, piece.bytes);
      } finally {
        pool.give(piece.buffer);
      }
    }
    res.end();
  } finally {
    // Reads still running own their buffers: wait for them before the file is closed.
    for (const outcome of await Promise.allSettled(reads))
      if (outcome.status === 'fulfilled') pool.give(outcome.value.buffer);
  }
}

/** The range as the store's own stream (one ranged GET), at the pace the client takes it. */
async function sendByStream(res: ServerResponse, stream: Readable): Promise<void> {
  // pipeline ends the response, and on a failure or a client gone destroys both sides.
  await pipeline(stream, res);
}

/** Sends bytes [start, end] (inclusive) of the file and closes it. */
export async function sendRange(
  res: ServerResponse,
  file: RandomReader,
  start: number,
  end: number,
): Promise<void> {
  try {
    const socket = res.socket;
    const socketFd = plainSocketFd(socket);
    const fileFd = file.fd;
    if (socketFd !== undefined && fileFd !== undefined)
      return await sendByKernel(res, socket!, undefined, (idleMs) =>
        sendFile(socketFd, fileFd, start, end - start + 1, idleMs),
      );
    // Asked only where the kernel can take it: it sends the store's GET.
    const body = socketFd !== undefined ? await file.socketBody?.(start, end) : undefined;
    if (body) await sendByRelay(res, socket!, socketFd!, body);
    else if (file.stream) await sendByStream(res, await file.stream(start, end));
    else await sendByReads(res, file, start, end);
  } finally {
    await file.close();
  }
}
