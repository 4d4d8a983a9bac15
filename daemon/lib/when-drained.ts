// Backpressure: every writer that must wait for a destination to take more waits here.
import type { Writable } from 'node:stream';

export interface DrainOptions {
  /** Stops the wait when the reader is gone (the request's signal). */
  signal?: AbortSignal;
  /** Rejects with this message when the destination closes first; without it the wait resolves. */
  closedMessage?: string;
}

/**
 * Resolves once `out` can take more (at once if it can), or once it closes or `signal` aborts,
 * so that a writer waiting for a client that left is never left hanging.
 */
export function whenDrained(out: Writable, options: DrainOptions = {}): Promise<void> {
  const { signal, closedMessage } = options;
  const closed = () => (closedMessage ? Promise.reject(new Error(closedMessage)) : Promise.resolve());
  if (out.destroyed) return closed();
  if (!out.writableNeedDrain || signal?.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      signal?.removeEventListener('abort', onDrain);
      if (err) reject(err);
      else resolve();
    };
    const onDrain = () => done();
    const onClose = () => done(closedMessage ? new Error(closedMessage) : undefined);
    out.on('drain', onDrain);
    out.on('close', onClose);
    signal?.addEventListener('abort', onDrain);
  });
}
