// The zero-copy blob sender (blob-sendfile.c, built into build/native/ by build:node): hands a
// byte range of a local file to a socket with sendfile(2) on a thread of its own.
import { join } from 'node:path';
import { repoRoot } from '../../lib/product';

interface Native {
  send(
    socketFd: number,
    fileFd: number,
    offset: number,
    length: number,
    idleMs: number,
    done: (error: string | null, sent: number) => void,
  ): number;
  cancel(id: number): void;
  trim(): boolean;
}

let loaded: Native | undefined;

function native(): Native {
  if (!loaded) {
    const module = { exports: {} };
    process.dlopen(module, join(repoRoot(), 'build', 'native', 'blob-sendfile.node'));
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
  const n = native();
  let id = 0;
  const done = new Promise<number>((resolve, reject) => {
    id = n.send(socketFd, fileFd, offset, length, idleMs, (error, sent) =>
      error === null
        ? resolve(sent)
        : reject(new Error(`sendfile: ${error} after ${sent} of ${length} bytes`)),
    );
  });
  return { done, cancel: () => n.cancel(id) };
}

/** Gives the allocator's free pages back to the system (glibc malloc_trim). */
export function returnFreeMemory(): void {
  native().trim();
}
