// Named pipes for task stdio: containerd's shim opens the paths we pass in CreateTask/Exec.
import { execFile } from 'node:child_process';
import { constants, openSync } from 'node:fs';
import { Socket } from 'node:net';
import { promisify } from 'node:util';
import { SystemError } from '../../api/errors';
import { call, hostCalls } from '../../lib/host-calls';

/** Makes the FIFOs in one call (one mkfifo process where host-calls.node is missing). */
export async function createFifos(paths: string[], mode = 0o600): Promise<void> {
  const native = hostCalls();
  try {
    if (native) await call((done) => native.mkfifo(paths, mode, done));
    else await promisify(execFile)('mkfifo', ['-m', mode.toString(8), ...paths]);
  } catch (err) {
    const reason = (err as { stderr?: string }).stderr?.trim() || (err as Error).message;
    throw new SystemError(`mkfifo: ${reason}`, { cause: err });
  }
}

/**
 * Opens the read end of a FIFO without blocking (no writer needed yet) as a stream on the event
 * loop, not the thread pool. Open it before creating the task so the shim's writer finds it; it
 * ends once the shim closes its end after the process exits.
 */
export function openFifoReader(path: string): Socket {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NONBLOCK);
  return new Socket({ fd, readable: true, writable: false });
}

/**
 * Opens the write end of a FIFO (for stdin). O_RDWR never blocks nor fails for want of a reader;
 * end the stream, then call tasks.closeIO, to give the process end-of-file.
 */
export function openFifoWriter(path: string): Socket {
  const fd = openSync(path, constants.O_RDWR | constants.O_NONBLOCK);
  return new Socket({ fd, readable: false, writable: true });
}
