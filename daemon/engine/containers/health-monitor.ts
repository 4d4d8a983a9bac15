// Healthchecks: probes run as containerd execs every Interval; Retries failures in a row (not
// counting those within StartPeriod) make the container unhealthy, one success healthy. The
// last five results are kept in State.Health.Log and each status change is an event.
import type { HealthConfig } from '../../api/container-types';
import type { HealthLogEntry, HealthState } from '../../api/container-summary-types';
import type { OciProcess, OciSpec } from '../../runtime/oci-spec/oci-types';
import type { Container } from './container';
import { nowRfc3339Nano } from './container-record';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { execCapture } from './exec-capture';

const defaultIntervalNs = 30e9;
const defaultTimeoutNs = 30e9;
const defaultRetries = 3;
const logLength = 5;

/** The probe's argv, or undefined when the container has no healthcheck. */
export function probeArgs(health: HealthConfig | null | undefined): string[] | undefined {
  const test = health?.Test ?? [];
  if (test.length === 0 || test[0] === 'NONE') return undefined;
  if (test[0] === 'CMD-SHELL') return ['/bin/sh', '-c', test.slice(1).join(' ')];
  return test.slice(1);
}

function record(health: HealthState, entry: HealthLogEntry): void {
  health.Log.push(entry);
  if (health.Log.length > logLength) health.Log.splice(0, health.Log.length - logLength);
}

async function probe(ctx: EngineContext, container: Container, args: string[], timeoutMs: number) {
  const start = nowRfc3339Nano();
  try {
    const spec = (await ctx.client.containers.get(container.id)).spec as OciSpec;
    const process: OciProcess = { ...spec.process, args };
    const result = await execCapture(
      ctx.client,
      container.id,
      process,
      ctx.paths.healthIo(container.id),
      timeoutMs,
    );
    const output = result.timedOut ? `Health check exceeded timeout (${timeoutMs / 1000}s)` : result.output;
    return { Start: start, End: nowRfc3339Nano(), ExitCode: result.exitCode, Output: output };
  } catch (err) {
    return { Start: start, End: nowRfc3339Nano(), ExitCode: -1, Output: (err as Error).message };
  }
}

/** Starts probing the container's current run; returns the function that stops it. */
export function startHealthMonitor(ctx: EngineContext, container: Container): () => void {
  const config = container.record.Config.Healthcheck;
  const args = probeArgs(config);
  if (!args) return () => undefined;
  const intervalMs = (config?.Interval || defaultIntervalNs) / 1e6;
  const timeoutMs = (config?.Timeout || defaultTimeoutNs) / 1e6;
  const retries = config?.Retries || defaultRetries;
  const startPeriodMs = (config?.StartPeriod ?? 0) / 1e6;
  const state = container.record.State;
  const health: HealthState =
    state.Health?.Status === 'starting' ? state.Health : { Status: 'starting', FailingStreak: 0, Log: [] };
  state.Health = health;
  const startedAt = Date.parse(state.StartedAt);
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const tick = async () => {
    const entry = await probe(ctx, container, args, timeoutMs);
    if (stopped) return;
    record(health, entry);
    const before = health.Status;
    if (entry.ExitCode === 0) {
      health.FailingStreak = 0;
      health.Status = 'healthy';
    } else if (Date.now() - startedAt > startPeriodMs || health.Status !== 'starting') {
      health.FailingStreak++;
      if (health.FailingStreak >= retries) health.Status = 'unhealthy';
    }
    await saveRecord(ctx, container).catch(() => undefined);
    if (health.Status !== before) publishContainerEvent(ctx, container, `health_status: ${health.Status}`);
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs);
  };
  timer = setTimeout(() => void tick(), intervalMs);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
