// Many clients pulling blobs at once, measured with curl (one process, --parallel) so that the
// client side costs the same, and little, for every registry: aggregate MB/s over the whole run and
// the p99 of each transfer's time to first byte.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PullLoad {
  /** Transfers in flight at once. */
  clients: number;
  /** Blob URLs, pulled in turn: client i starts on urls[i % urls.length]. */
  urls: string[];
  /** Transfers each client makes in sequence. */
  pullsPerClient: number;
}

export interface PullFigures {
  mbPerSecond: number;
  p99FirstByteMs: number;
  /** The fastest transfer's own rate, from curl's timing (no process start in it). */
  fastestTransferMBps: number;
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

export async function concurrentPulls(load: PullLoad): Promise<PullFigures> {
  const total = load.clients * load.pullsPerClient;
  const args = [
    '-sS',
    '--fail',
    '--parallel',
    '--parallel-immediate',
    '--parallel-max',
    String(load.clients),
  ];
  args.push('-w', '%{http_code} %{size_download} %{time_starttransfer} %{time_total}\\n');
  for (let i = 0; i < total; i++) args.push(load.urls[i % load.urls.length], '-o', '/dev/null');
  const start = process.hrtime.bigint();
  const { stdout } = await run('curl', args, { maxBuffer: 1 << 20 });
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  const transfers = stdout
    .trim()
    .split('\n')
    .map((line) => line.split(' '));
  const failed = transfers.filter(([code]) => code !== '200');
  if (transfers.length !== total || failed.length > 0)
    throw new Error(
      `concurrent pulls: ${failed.length} of ${transfers.length} failed (${failed[0]?.join(' ')})`,
    );
  const bytes = transfers.reduce((sum, [, size]) => sum + Number(size), 0);
  return {
    mbPerSecond: bytes / 1e6 / seconds,
    p99FirstByteMs: percentile(
      transfers.map(([, , ttfb]) => Number(ttfb) * 1000),
      99,
    ),
    fastestTransferMBps: Math.max(
      ...transfers.map(([, size, , total]) => Number(size) / 1e6 / Number(total)),
    ),
  };
}
