// The shapes clients index into: for the same objects, every key Docker Engine 20.10 emits at API
// 1.41 is in svcd's answer and svcd adds none (recursive, values ignored). Kept in the suite so new
// fields cannot drift from dockerd's.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { useEnginePair } from '../../testing/engine-pair';
import { expectStatus } from '../../../testing/containers-fixture';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import type { EngineApi } from '../../../testing/engine-client';

type Engine = EngineApi;

// Maps keyed by what the engine has rather than by the API: their entries are compared under `*`.
// dockerd lists three runtime names where svcd runs runc alone.
const dataMaps = new Set(['Runtimes']);
// Driver-specific by the API's own words: dockerd's overlay2 names its directories, svcd's
// containerd overlayfs snapshotter shows none.
const driverSpecific = new Set(['GraphDriver.Data']);

/**
 * Every key path of a JSON value: `HostConfig.Binds`, `Mounts[].Source`. Array elements share one
 * `[]` segment; other maps keyed by data (labels, ports, networks) are compared by their data,
 * which is the same on both engines for the same objects.
 */
function keyPaths(value: unknown, prefix = ''): Set<string> {
  const out = new Set<string>();
  if (driverSpecific.has(prefix)) return out;
  if (Array.isArray(value)) {
    for (const v of value) for (const p of keyPaths(v, `${prefix}[]`)) out.add(p);
  } else if (value !== null && typeof value === 'object') {
    const collapse = dataMaps.has(prefix);
    for (const [k, v] of Object.entries(value)) {
      const key = collapse ? '*' : k;
      const path = prefix ? `${prefix}.${key}` : key;
      out.add(path);
      for (const p of keyPaths(v, path)) out.add(p);
    }
  }
  return out;
}

/** What one side has and the other lacks, for a readable failure. */
function keyDiff(ours: unknown, theirs: unknown) {
  const a = keyPaths(ours);
  const b = keyPaths(theirs);
  return { missing: [...b].filter((k) => !a.has(k)).sort(), extra: [...a].filter((k) => !b.has(k)).sort() };
}

const get = async (engine: Engine, path: string) =>
  expectStatus(await engine.request('GET', `/v1.41${path}`), 200).json<unknown>();

async function create(engine: Engine, body: Record<string, unknown> = {}): Promise<string> {
  const res = await engine.request('POST', '/containers/create', {
    body: { Image: 'busybox', Cmd: ['sleep', '600'], HostConfig: { NetworkMode: 'none' }, ...body },
  });
  return expectStatus(res, 201).json<{ Id: string }>().Id;
}

describe('key sets as Docker Engine 20.10 emits them at 1.41', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();

  /** Makes the same objects on both engines, then compares each path's keys. */
  async function compare(paths: (engine: Engine, ids: Record<string, string>) => Promise<string[]>) {
    const { svcd, dockerd } = engines();
    const answers = [];
    for (const engine of [svcd, dockerd]) {
      const ids: Record<string, string> = {
        created: await create(engine),
        running: await create(engine),
        exited: await create(engine, { Cmd: ['true'] }),
      };
      expectStatus(await engine.request('POST', `/containers/${ids.running}/start`), 204);
      expectStatus(await engine.request('POST', `/containers/${ids.exited}/start`), 204);
      expectStatus(await engine.request('POST', `/containers/${ids.exited}/wait`), 200);
      const exec = await engine.request('POST', `/containers/${ids.running}/exec`, {
        body: { Cmd: ['true'] },
      });
      ids.exec = expectStatus(exec, 201).json<{ Id: string }>().Id;
      const list = await paths(engine, ids);
      answers.push(await Promise.all(list.map((p) => get(engine, p))));
      for (const id of [ids.created, ids.running, ids.exited])
        await engine.request('DELETE', `/containers/${id}?force=1`);
    }
    const [ours, theirs] = answers;
    const diffs = ours.map((o, i) => keyDiff(o, theirs[i]));
    const names = await paths(engines().svcd, {
      created: 'created',
      running: 'running',
      exited: 'exited',
      exec: 'exec',
    });
    const failed = Object.fromEntries(
      diffs.flatMap((d, i) => (d.missing.length || d.extra.length ? [[names[i], d]] : [])),
    );
    assert.deepEqual(failed, {}, JSON.stringify(failed, null, 1));
  }

  test('container inspect (created, running, exited) and exec inspect', () =>
    compare(async (_, ids) => [
      `/containers/${ids.created}/json`,
      `/containers/${ids.running}/json`,
      `/containers/${ids.exited}/json`,
      `/exec/${ids.exec}/json`,
    ]));

  test('image inspect', () => compare(async () => ['/images/busybox/json']));

  test('/containers/json and /images/json', () =>
    compare(async () => ['/containers/json?all=1', '/images/json']));

  test('/info and /version', () => compare(async () => ['/info', '/version']));

  test('/system/df', () => compare(async () => ['/system/df']));
});
