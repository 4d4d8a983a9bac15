// The blob sender (blob-transfer.c, built into build/native/ by build:node): writes a byte range
// of a local file to a socket from a mapping of it, or moves the next bytes of another socket
// (an object store's answer) with splice(2), on a thread of its own.
import { join } from 'node:path';
import { repoRoot } from '../../lib/product';

/** Called once a transfer ends: null, or why it stopped, and the bytes it got out. */
type Done = (error: string | null, sent: number) => void;

interface Native {
  send(socketFd: number, fileFd: number, offset: number, length: number, idleMs: number, done: Done): number;
  relay(socketFd: number, sourceFd: number, length: number, idleMs: number, done: Done): number;
  cancel(id: number): void;
  trim(): boolean;
}

let loaded: Native | undefined;

function native(): Native {
  if (!loaded) {
    const module = { exports: {} };
    process.dlopen(module, join(repoRoot(), 'build', 'native', 'blob-transfer.node'));
    loaded = module.exports as Native;
  }
  return loaded;
}

export interface Transfer {
  /** Settles with the bytes sent once the range is in the socket, or the reason it stopped. */
  done: Promise<number>;
  /** Stops it (the client went away); `done` then rejects with "cancelled". */
  cancel(): void;
}

function transfer(what: string, length: number, start: (done: Done) => number): Transfer {
  let id = 0;
  const done = new Promise<number>((resolve, reject) => {
    id = start((error, sent) =>
      error === null
        ? resolve(sent)
        : reject(new Error(`${what}: ${error} after ${sent} of ${length} bytes`)),
    );
  });
  return { done, cancel: () => native().cancel(id) };
}

/**
 * Sends `length` bytes of `fileFd` from `offset` to `socketFd` (both fds are dup'd); a client
 * that takes nothing for `idleMs` ends it.
 */
export function sendFile(
  socketFd: number,
  fileFd: number,
  offset: number,
  length: number,
  idleMs: number,
): Transfer {
  return transfer('send', length, (done) => native().send(socketFd, fileFd, offset, length, idleMs, done));
}

/**
 * Moves the next `length` bytes read from the socket `sourceFd` to `socketFd` (both dup'd; Node
 * must not read the source meanwhile); nothing moving either way for `idleMs` ends it.
 */
export function relaySocket(socketFd: number, sourceFd: number, length: number, idleMs: number): Transfer {
  return transfer('relay', length, (done) => native().relay(socketFd, sourceFd, length, idleMs, done));
}

/** Gives the allocator's free pages back to the system (glibc malloc_trim). */
export function returnFreeMemory(): void {
  native().trim();
}
