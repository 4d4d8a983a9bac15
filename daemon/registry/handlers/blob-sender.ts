// Writes a byte range of a stored blob to a response: reads run a few pieces ahead of the socket
// into pooled buffers, and a buffer goes back to the pool only once the kernel has its bytes (the
// write callback), so every response respects backpressure and no piece is ever allocated anew.
import type { ServerResponse } from 'node:http';
import { BufferPool } from '../../lib/buffer-pool';
import type { RandomReader } from '../storage/driver';

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

/** Sends bytes [start, end] (inclusive) of the file and closes it. */
export async function sendRange(
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
    // Reads still running own their buffers and the file: wait for them before closing it.
    for (const outcome of await Promise.allSettled(reads))
      if (outcome.status === 'fulfilled') pool.give(outcome.value.buffer);
    await file.close();
  }
}
