// Shared by the containers tests: an isolated svcd with the busybox image, small request
// helpers, and a cleanup that force-removes containers before svcd stops (their shims would
// otherwise outlive the test).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { destroySvcd, engineEvents, startSvcd, type SvcdInstance } from './svcd-harness';
import type { EngineResponse } from './engine-client';
import type { ContainerInspect } from '../api/container-summary-types';
import type { EngineEvent } from '../api/event-types';
import { importBusybox } from './busybox-image';
import { poll } from './poll';

export interface Engine {
  svcd: SvcdInstance;
  imageId: string;
}

export async function startEngine(): Promise<Engine> {
  const svcd = await startSvcd();
  const imageId = await importBusybox(svcd);
  return { svcd, imageId };
}

export async function stopEngine(engine: Engine | undefined): Promise<void> {
  // destroySvcd force-removes the suite's containers before it stops svcd.
  await destroySvcd(engine?.svcd);
}

/** Inside a describe(): an engine started before its tests and cleaned up after them. */
export function useEngine(): () => Engine {
  let engine: Engine | undefined;
  before(async () => {
    engine = await startEngine();
  });
  after(() => stopEngine(engine));
  return () => {
    if (!engine) throw new Error('the engine is not started');
    return engine;
  };
}

export function expectStatus(res: EngineResponse, status: number, what = ''): EngineResponse {
  assert.equal(res.status, status, `${what} ${res.status}: ${res.text()}`);
  return res;
}

/** Creates a container from busybox (body fields override) and returns its ID. */
export async function create(
  svcd: SvcdInstance,
  body: Record<string, unknown> = {},
  name?: string,
): Promise<string> {
  const path = name ? `/containers/create?name=${name}` : '/containers/create';
  const res = await svcd.request('POST', path, { body: { Image: 'busybox', ...body } });
  return expectStatus(res, 201, 'create').json<{ Id: string }>().Id;
}

export async function run(
  svcd: SvcdInstance,
  body: Record<string, unknown> = {},
  name?: string,
): Promise<string> {
  const id = await create(svcd, body, name);
  expectStatus(await svcd.request('POST', `/containers/${id}/start`), 204, 'start');
  return id;
}

export async function inspect<T = ContainerInspect>(svcd: SvcdInstance, id: string): Promise<T> {
  return expectStatus(await svcd.request('GET', `/containers/${id}/json`), 200, 'inspect').json<T>();
}

/** The container's events since `sinceSec` (Unix seconds) until now. */
export function containerEvents(
  svcd: Pick<SvcdInstance, 'request'>,
  id: string,
  sinceSec: number,
): Promise<EngineEvent[]> {
  return engineEvents(svcd, sinceSec, { container: [id] });
}

/** Polls until `check` holds, or returns the last value once the time is up (the test asserts it). */
export async function eventually<T>(
  fn: () => Promise<T>,
  check: (v: T) => boolean,
  timeoutMs = 15000,
): Promise<T> {
  let last!: T;
  const held = await poll(
    async () => {
      last = await fn();
      return check(last) ? { value: last } : undefined;
    },
    { timeoutMs, intervalMs: 50 },
  );
  return held ? held.value : last;
}
