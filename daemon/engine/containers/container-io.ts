// The stdio of a container's init process: the FIFOs the shim writes to, and their reading.
// This object owns the read ends for the container's whole run (and re-opens them when svcd
// re-attaches after a restart); the json-file log writer and attach subscribe to 'data'.
// When the shim's logging binary writes the log (ShimLog), there are no FIFOs: 'data' comes from
// following the log file, from the moment the first listener subscribes.
import { EventEmitter } from 'node:events';
import { statSync } from 'node:fs';
import { lstat, mkdir, rm } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { join } from 'node:path';
import { createFifos, openFifoReader, openFifoWriter } from '../../runtime/containerd/fifo';
import type { TaskIO } from '../../runtime/containerd/tasks-service';
import { readJsonFileLogBatches, type LogStart } from '../logs/json-file-reader';
import type { ShimLog } from '../logs/shim-log';

export type StdStream = 'stdout' | 'stderr';

export interface ContainerIOOptions {
  /** A directory of the container's own where the FIFOs live. */
  dir: string;
  openStdin: boolean;
  tty: boolean;
  /** The shim's logger writes the output to the log file (no stdin, no terminal). */
  shimLog?: ShimLog;
}

/** Emits `data` (stream, chunk) for every chunk the process writes, and `end` when both close. */
export class ContainerIO extends EventEmitter {
  private readers: Socket[] = [];
  /** The write end of stdin, when the container was created with OpenStdin. */
  stdin?: Socket;
  /** With a ShimLog: resolves once the run's last output is in the log file (or svcd let go). */
  readonly outputWritten: Promise<void>;
  private finishOutput!: () => void;
  private readonly closing = new AbortController();
  private following = false;

  private constructor(
    readonly paths: TaskIO,
    readonly shimLog?: ShimLog,
  ) {
    super();
    this.outputWritten = new Promise((resolve) => (this.finishOutput = resolve));
    if (shimLog) {
      this.on('newListener', (event: string) => {
        if (event === 'data' && !this.following) this.followLog(shimLog);
      });
    }
  }

  /**
   * Makes the container's FIFOs unless they exist (`fresh`: its directory was just made, so none
   * can). Done at create, so a start spawns no process; they serve every run (each run's output
   * is drained before its IO closes).
   */
  static async prepare(opts: ContainerIOOptions, fresh = false): Promise<void> {
    const paths = ContainerIO.pathsOf(opts);
    const all = [paths.stdin, paths.stdout, paths.stderr].filter((p): p is string => !!p);
    if (fresh) {
      await mkdir(opts.dir, { recursive: true, mode: 0o700 });
      return createFifos(all);
    }
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
    // One call for all of them (one process where host-calls.node is missing).
    await createFifos(missing);
  }

  /** The FIFOs, opened for a new run of the task. */
  static async create(opts: ContainerIOOptions): Promise<ContainerIO> {
    if (opts.shimLog) return new ContainerIO(ContainerIO.pathsOf(opts), opts.shimLog);
    await ContainerIO.prepare(opts);
    return ContainerIO.open(ContainerIO.pathsOf(opts));
  }

  /** FIFOs that exist: made by `prepare`, or those of a task that kept running while svcd was away. */
  static reopen(opts: ContainerIOOptions): ContainerIO {
    if (opts.shimLog) return new ContainerIO(ContainerIO.pathsOf(opts), opts.shimLog);
    return ContainerIO.open(ContainerIO.pathsOf(opts));
  }

  /** Where the FIFOs of these options are, without making or opening them. */
  static pathsOf(opts: ContainerIOOptions): TaskIO {
    if (opts.shimLog) return { stdout: opts.shimLog.uri, stderr: opts.shimLog.uri, terminal: false };
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

  /**
   * Emits the log's entries written from now on, until the run's output is complete. The position
   * is taken now, synchronously: a start right after the subscription loses nothing.
   */
  private followLog(log: ShimLog): void {
    this.following = true;
    let from: LogStart;
    try {
      const { ino, size } = statSync(log.path);
      from = { ino, offset: size };
    } catch {
      from = { ino: -1, offset: 0 }; // no file yet: all of it is new
    }
    const stopped = new AbortController();
    void this.outputWritten.then(() => stopped.abort());
    void (async () => {
      const batches = readJsonFileLogBatches(log.path, {
        follow: true,
        from,
        stopped: stopped.signal,
        signal: this.closing.signal,
        maxFile: log.maxFile,
      });
      try {
        for await (const batch of batches) {
          for (const m of batch) this.emit('data', m.source, Buffer.from(m.line));
        }
      } catch {
        // The file went away with the container: nothing more to show.
      }
      this.emit('end');
    })();
  }

  /**
   * Closes once the shim has closed its ends (all output read), or after `graceMs` at the latest.
   * With a ShimLog, once `written` resolves: the task deleted, its logger has exited.
   */
  closeWhenDrained(written: Promise<unknown> = Promise.resolve(), graceMs = 2000): void {
    if (this.shimLog) {
      void written.then(this.finishOutput, this.finishOutput);
      return;
    }
    if (this.readers.every((r) => r.destroyed)) return this.close();
    const timer = setTimeout(() => this.close(), graceMs);
    this.once('end', () => {
      clearTimeout(timer);
      this.close();
    });
  }

  close(): void {
    this.finishOutput();
    this.closing.abort();
    for (const reader of this.readers) reader.destroy();
    this.stdin?.destroy();
  }
}
