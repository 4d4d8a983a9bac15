// The stdio of a container's init process: the FIFOs the shim writes to, and their reading.
// This object owns the read ends for the container's whole run (and re-opens them when svcd
// re-attaches after a restart); the json-file log writer and attach subscribe to 'data'.
import { execFile } from 'node:child_process';
import { EventEmitter } from 'node:events';
import { lstat, mkdir, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { openFifoReader, openFifoWriter } from '../../runtime/containerd/fifo';
import type { TaskIO } from '../../runtime/containerd/tasks-service';
import { SystemError } from '../../api/errors';

const run = promisify(execFile);

async function createFifos(paths: string[]): Promise<void> {
  try {
    await run('mkfifo', ['-m', '600', ...paths]);
  } catch (err) {
    throw new SystemError(`mkfifo: ${(err as { stderr?: string }).stderr?.trim() || String(err)}`);
  }
}

export type StdStream = 'stdout' | 'stderr';

export interface ContainerIOOptions {
  /** A directory of the container's own where the FIFOs live. */
  dir: string;
  openStdin: boolean;
  tty: boolean;
}

/** Emits `data` (stream, chunk) for every chunk the process writes, and `end` when both close. */
export class ContainerIO extends EventEmitter {
  private readers: Socket[] = [];
  /** The write end of stdin, when the container was created with OpenStdin. */
  stdin?: Socket;

  private constructor(readonly paths: TaskIO) {
    super();
  }

  /**
   * Makes the container's FIFOs unless they exist. Done at create, so a start spawns no
   * process; they serve every run (each run's output is drained before its IO closes).
   */
  static async prepare(opts: ContainerIOOptions): Promise<void> {
    const paths = ContainerIO.pathsOf(opts);
    const all = [paths.stdin, paths.stdout, paths.stderr].filter((p): p is string => !!p);
    const missing: string[] = [];
    for (const path of all) {
      const isFifo = await lstat(path).then(
        (s) => s.isFIFO(),
        () => false,
      );
      if (!isFifo) missing.push(path);
    }
    if (missing.length === 0) return;
    await mkdir(opts.dir, { recursive: true, mode: 0o700 });
    await Promise.all(missing.map((path) => rm(path, { force: true })));
    // One mkfifo for all of them: a process spawn is a visible part of a create.
    await createFifos(missing);
  }

  /** The FIFOs, opened for a new run of the task. */
  static async create(opts: ContainerIOOptions): Promise<ContainerIO> {
    await ContainerIO.prepare(opts);
    return ContainerIO.open(ContainerIO.pathsOf(opts));
  }

  /** The FIFOs of a task that kept running while svcd was away. */
  static reopen(opts: ContainerIOOptions): ContainerIO {
    return ContainerIO.open(ContainerIO.pathsOf(opts));
  }

  /** Where the FIFOs of these options are, without making or opening them. */
  static pathsOf(opts: ContainerIOOptions): TaskIO {
    return {
      stdin: opts.openStdin ? join(opts.dir, 'stdin') : undefined,
      stdout: join(opts.dir, 'stdout'),
      // With a terminal the shim writes everything to stdout.
      stderr: opts.tty ? undefined : join(opts.dir, 'stderr'),
      terminal: opts.tty,
    };
  }

  private static open(paths: TaskIO): ContainerIO {
    const io = new ContainerIO(paths);
    let open = 0;
    for (const stream of ['stdout', 'stderr'] as const) {
      const path = paths[stream];
      if (!path) continue;
      const reader = openFifoReader(path);
      open++;
      reader.on('data', (chunk: Buffer) => io.emit('data', stream, chunk));
      reader.on('error', () => reader.destroy());
      reader.once('close', () => {
        if (--open === 0) io.emit('end');
      });
      io.readers.push(reader);
    }
    if (paths.stdin) io.stdin = openFifoWriter(paths.stdin);
    return io;
  }

  /** Closes once the shim has closed its ends (all output read), or after `graceMs` at the latest. */
  closeWhenDrained(graceMs = 2000): void {
    if (this.readers.every((r) => r.destroyed)) return this.close();
    const timer = setTimeout(() => this.close(), graceMs);
    this.once('end', () => {
      clearTimeout(timer);
      this.close();
    });
  }

  close(): void {
    for (const reader of this.readers) reader.destroy();
    this.stdin?.destroy();
  }
}
