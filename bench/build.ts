// Builds through POST /build, the classic builder on both sides: a 6-step busybox-based build
// with a 5 MB COPY and two RUNs, cold (no cache), fully cached, and again after the 5 MB file
// changed; median wall time of each, for svcd and, when given, Docker Engine. RUN steps use
// networkmode=none on both: the peer runs without a bridge.
import { randomBytes } from 'node:crypto';
import { engineRequest } from '../daemon/testing/engine-client';
import { tarOf } from '../daemon/testing/tar-of';
import { caller, importBusyboxAs, median, sideBySide } from './bench-engine';
import type { BenchOptions, BenchRow, BenchSuite } from './types';

const runs = 5;
const base = 'svc-bench-build/busybox:latest';
const tag = 'svc-bench-build/app:latest';
const instructions = `FROM ${base}
ENV APP=/app
WORKDIR /app
COPY payload.bin /app/payload.bin
RUN sha256sum /app/payload.bin > /app/sum
RUN cp /app/sum /app/sum2 && wc -c /app/payload.bin
CMD ["cat", "/app/sum"]
`;

async function contextWith(payload: Buffer): Promise<Buffer> {
  return tarOf([
    [{ name: 'Dockerfile' }, instructions],
    [{ name: 'payload.bin' }, payload],
  ]);
}

/** Milliseconds for one build of `context`, which must succeed. */
async function buildOnce(socket: string, context: Buffer, query: string): Promise<number> {
  const t0 = process.hrtime.bigint();
  const res = await engineRequest(
    socket,
    'POST',
    `/build?t=${encodeURIComponent(tag)}&networkmode=none&${query}`,
    {
      body: context,
      headers: { 'Content-Type': 'application/x-tar' },
    },
  );
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (res.status !== 200 || /"error"/.test(res.text()))
    throw new Error(`build: ${res.status} ${res.text().slice(-500)}`);
  return ms;
}

interface Figures {
  cold: number;
  cached: number;
  changed: number;
}

async function measure(socket: string): Promise<Figures> {
  await importBusyboxAs(socket, base);
  const payload = randomBytes(5 << 20);
  const context = await contextWith(payload);
  await buildOnce(socket, context, 'nocache=1');
  const cold: number[] = [];
  const cached: number[] = [];
  const changed: number[] = [];
  for (let i = 0; i < runs; i++) cold.push(await buildOnce(socket, context, 'nocache=1'));
  for (let i = 0; i < runs; i++) cached.push(await buildOnce(socket, context, ''));
  for (let i = 0; i < runs; i++) {
    payload.writeUInt32LE(i + 1, payload.length - 4);
    changed.push(await buildOnce(socket, await contextWith(payload), ''));
  }
  await caller(socket)('DELETE', `/images/${encodeURIComponent(tag)}`).catch(() => undefined);
  return { cold: median(cold), cached: median(cached), changed: median(changed) };
}

async function run(options: BenchOptions): Promise<BenchRow[]> {
  const { row } = await sideBySide(options, measure);
  return [
    row('build, 6 steps with a 5 MB COPY and 2 RUNs, no cache, median', 'ms', 'cold', false, '< dockerd'),
    row('the same build fully cached, median', 'ms', 'cached', false, '< dockerd'),
    row('the same build after the 5 MB file changed, median', 'ms', 'changed', false, '< dockerd'),
  ];
}

export const buildSuite: BenchSuite = { name: 'build', run };
