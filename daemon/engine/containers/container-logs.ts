// Every run of a container writes its output to the json-file log (unless its driver is `none`),
// and the logs API and attach's `logs=1` read it back, following across restarts until the
// container stops for good.
import { PassThrough } from 'node:stream';
import { InvalidParameterError, NotImplementedError } from '../../api/errors';
import { JsonFileWriter } from '../logs/json-file-writer';
import { jsonFileSettings, logDriver } from './container-log-driver';
import type { LogLine, LogsRequest, LogsStream } from '../../api/container-stream-types';
import { readJsonFileLogBatches, type LogMessage } from '../logs/json-file-reader';
import { formatLogMessage } from '../logs/log-format';
import { parseJsonFileOptions } from '../logs/log-options';
import type { Container } from './container';
import type { ContainerIO } from './container-io';
import { isRunning } from './container-state';
import type { ContainerIOFeed } from './container-io-feed';
import type { ContainerPaths } from './container-paths';
import type { Logger } from '../../lib/logger';

export class ContainerLogs {
  /** Per container, the writing of its latest run: resolves once that run's output is in the file. */
  private readonly written = new Map<string, Promise<void>>();

  constructor(
    private readonly paths: ContainerPaths,
    private readonly log: Logger,
    ioFeed: ContainerIOFeed,
  ) {
    ioFeed.add((container, io) => this.onIO(container, io));
  }

  path(container: Container): string {
    return logDriver(container.record) === 'json-file' ? this.paths.log(container.id) : '';
  }

  /** Copies this run's stdout and stderr into the log, after the previous run's. */
  private onIO(container: Container, io: ContainerIO): void {
    if (logDriver(container.record) !== 'json-file') return;
    const previous = this.written.get(container.id) ?? Promise.resolve();
    if (io.shimLog) {
      // The shim's logger writes this run; it is in the file once the logger has exited.
      this.written.set(
        container.id,
        previous.then(() => io.outputWritten),
      );
      return;
    }
    const out = new PassThrough();
    const err = new PassThrough();
    io.on('data', (stream: 'stdout' | 'stderr', chunk: Buffer) =>
      (stream === 'stdout' ? out : err).write(chunk),
    );
    io.once('end', () => {
      out.end();
      err.end();
    });
    const done = previous.then(() =>
      this.copy(container, out, err).catch((e: Error) => {
        this.log.warn('cannot write the container log', { id: container.id, error: e.message });
        out.resume();
        err.resume();
      }),
    );
    this.written.set(container.id, done);
  }

  private async copy(container: Container, out: PassThrough, err: PassThrough): Promise<void> {
    const { options, attrs } = jsonFileSettings(container.record);
    const writer = await JsonFileWriter.open(this.paths.log(container.id), options, attrs);
    try {
      await Promise.all([writer.copyFrom(out, 'stdout'), writer.copyFrom(err, 'stderr')]);
    } finally {
      await writer.close();
    }
  }

  /** Resolves once what the container printed so far is in the file. */
  whenWritten(container: Container): Promise<void> {
    return this.written.get(container.id) ?? Promise.resolve();
  }

  forget(container: Container): void {
    this.written.delete(container.id);
  }

  read(container: Container, options: LogsRequest): LogsStream {
    if (logDriver(container.record) !== 'json-file')
      throw new NotImplementedError('configured logging driver does not support reading');
    if (!options.stdout && !options.stderr)
      throw new InvalidParameterError('Bad parameters: you must choose at least one stream');
    const stopped = options.follow ? this.stopSignal(container, options.signal) : undefined;
    const maxFile = parseJsonFileOptions(container.record.HostConfig.LogConfig?.Config ?? {}).maxFile;
    const source = readJsonFileLogBatches(this.paths.log(container.id), {
      since: options.since,
      until: options.until,
      tail: options.tail,
      follow: options.follow,
      stopped,
      signal: options.signal,
      maxFile,
    });
    const wanted = (m: LogMessage) => (m.source === 'stdout' ? options.stdout : options.stderr);
    const both = options.stdout && options.stderr;
    const format = { timestamps: !!options.timestamps, details: !!options.details };
    // Most reads ask for neither prefix: their messages go out as read, without a copy per line.
    const plain = !format.timestamps && !format.details;
    const formatted = (m: LogMessage): LogLine => ({ source: m.source, line: formatLogMessage(m, format) });
    async function* batches(): AsyncGenerator<LogLine[]> {
      for await (const batch of source) {
        const kept = both ? batch : batch.filter(wanted);
        if (kept.length > 0) yield plain ? kept : kept.map(formatted);
      }
    }
    return { tty: !!container.record.Config.Tty, batches: batches() };
  }

  /**
   * Aborted once the container is stopped for good (not running, no restart on its way) and its
   * last output is in the file: a follower keeps going across restarts and then ends.
   */
  private stopSignal(container: Container, gone: AbortSignal): AbortSignal {
    const stop = new AbortController();
    const left = new Promise<void>((resolve) => {
      if (gone.aborted) resolve();
      gone.addEventListener('abort', () => resolve(), { once: true });
    });
    const active = () => {
      const s = container.record.State;
      return isRunning(s) || s.Status === 'restarting' || container.starting;
    };
    void (async () => {
      for (;;) {
        if (active()) {
          const exited = await Promise.race([container.nextExit().then(() => true), left.then(() => false)]);
          if (!exited) return;
        }
        // A restart in progress holds the container's lock: wait for it before judging.
        await container.exclusive(async () => undefined);
        if (active()) continue;
        await this.whenWritten(container);
        if (active()) continue;
        stop.abort();
        return;
      }
    })();
    return stop.signal;
  }
}
