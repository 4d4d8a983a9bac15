// Hostile input against a real svcd (issue 17): every route of every router's table gets
// malformed, deeply nested and wrongly typed bodies, hostile path parameters and query values,
// unknown parameters; archive PUT, image load and build get archives that try to escape their
// root (../, absolute names, symlinks, hard links, devices) and decompression bombs; the socket
// gets oversized headers, truncated and stalled bodies. Asserted: svcd never crashes (the same
// pid answers /_ping), no 5xx where a client error is right (each listed with its request), no
// write outside the data root, RSS bounded (printed before and after). The seed is printed;
// SVC_FUZZ_SEED=N replays a run.
//
// Network rule: every name that could make svcd contact a registry (pull, push, search, login,
// distribution, import and build remotes) names 127.0.0.1 on a port nobody listens on; build
// contexts start FROM scratch or the local busybox, and `pull` is never sent to /build.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { Route } from './router';
import { buildRoutes } from './routers/build/routes';
import { containerStreamsRoutes } from './routers/container-streams/routes';
import { containersRoutes } from './routers/containers/routes';
import { distributionRoutes } from './routers/distribution/routes';
import { eventsRoutes } from './routers/events/routes';
import { execRoutes } from './routers/exec/routes';
import { imagesRoutes } from './routers/images/routes';
import { networksRoutes } from './routers/networks/routes';
import { systemRoutes } from './routers/system/routes';
import { volumesRoutes } from './routers/volumes/routes';
import { destroySvcd, startSvcd, type SvcdInstance } from '../testing/svcd-harness';
import { FuzzLedger, rssMiB, sendCase, type FuzzCase } from '../testing/fuzz-ledger';
import {
  Prng,
  hostileJsonBody,
  hostileQuery,
  encodeAny,
  hostileSegment,
  hostileString,
  hostileValue,
} from '../testing/fuzz-input';
import { gzipBomb, hostileTars, nestedGzip } from '../testing/hostile-archives';
import { rawRequest } from '../testing/raw-http';
import { tarOf } from '../testing/tar-of';

const seed = Number(process.env.SVC_FUZZ_SEED ?? 1717);
const perRoute = 40;
const waitMs = 8000;

/** Every route svcd serves, from the routers' own tables (the handlers are never called here). */
function allRoutes(): Route[] {
  const none = {} as never;
  return [
    ...systemRoutes(none),
    ...eventsRoutes(none),
    ...imagesRoutes(none),
    ...containersRoutes(none),
    ...containerStreamsRoutes(none),
    ...execRoutes(none),
    ...volumesRoutes(none),
    ...networksRoutes(none, none),
    ...buildRoutes(none),
    ...distributionRoutes(none),
  ];
}

/** A port on 127.0.0.1 that nothing listens on: bound by the kernel's choice, then closed. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

interface Fixture {
  target: string;
  exec: string;
  loopback: string;
}

interface RouteInput {
  query?: string[];
  /** Parameters sent exactly as given (those that could reach a registry). */
  fixed?: (f: Fixture, rng: Prng) => Record<string, string>;
  body?: (f: Fixture) => Record<string, unknown>;
  /** The path parameter: a registry-bound name gets the loopback registry in front. */
  param?: (f: Fixture, rng: Prng) => string;
  /** The request may reach the loopback registry, which does not answer: a 503 naming it is right. */
  registryBound?: boolean;
  /** Answers a stream that may still be open when the wait ends. */
  streams?: boolean;
  /**
   * Waits on the container: a stop or restart takes up to its timeout (the client's `t`, or 10 s),
   * and the lifecycle operations of one container queue behind each other.
   */
  lifecycle?: boolean;
}

/**
 * The 5xx that are right answers (the few allowed, as dockerd gives them too): 501 for what svcd
 * does not implement and says so, and 503 when the registry a request names cannot be reached
 * (dockerd answers 500 there).
 */
function rightServerError(input: RouteInput, status: number | undefined, body: string): boolean {
  if (status === 501) return /not (supported|implemented)/.test(body);
  return !!input.registryBound && status === 503 && /is not reachable/.test(body);
}

const loopbackName = (f: Fixture, rng: Prng) =>
  `${f.loopback}/${rng.chance(0.5) ? 'fuzz/img' : hostileString(rng).replace(/^\/+/, '')}${rng.chance(0.3) ? `:${hostileString(rng)}` : ''}`;

/** What each route takes; routes not listed get hostile queries and bodies of no known shape. */
const inputs: Record<string, RouteInput> = {
  'GET /containers/json': { query: ['all', 'limit', 'since', 'before', 'size', 'filters'] },
  'POST /containers/create': {
    query: ['name', 'platform'],
    body: () => ({
      Image: 'busybox',
      Cmd: ['true'],
      Env: ['A=1'],
      Labels: { a: 'b' },
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { Memory: 0, CpuShares: 512, RestartPolicy: { Name: 'no' }, PortBindings: {} },
      NetworkingConfig: { EndpointsConfig: {} },
    }),
  },
  'POST /containers/prune': { query: ['filters'] },
  'GET /containers/{id}/json': { query: ['size'] },
  'GET /containers/{id}/top': { query: ['ps_args'] },
  'GET /containers/{id}/export': { streams: true },
  'POST /containers/{id}/resize': { query: ['h', 'w'] },
  'POST /containers/{id}/stop': { query: ['t'], fixed: () => ({ t: '1' }), lifecycle: true },
  'POST /containers/{id}/restart': { query: ['t'], fixed: () => ({ t: '1' }), lifecycle: true },
  'POST /containers/{id}/kill': { query: ['signal'], lifecycle: true },
  'POST /containers/{id}/start': { query: ['detachKeys'], lifecycle: true },
  'POST /containers/{id}/pause': { lifecycle: true },
  'POST /containers/{id}/unpause': { lifecycle: true },
  'POST /containers/{id}/update': {
    body: () => ({ Memory: 0, CpuShares: 512, PidsLimit: 0, RestartPolicy: { Name: 'no' } }),
  },
  'POST /containers/{id}/rename': { query: ['name'] },
  'POST /containers/{id}/wait': { query: ['condition'], streams: true },
  'DELETE /containers/{id*}': { query: ['force', 'v', 'link'] },
  'POST /containers/{id}/copy': { body: () => ({ Resource: '/etc/passwd' }) },
  'HEAD /containers/{id}/archive': { query: ['path'] },
  'GET /containers/{id}/archive': { query: ['path'], streams: true },
  'PUT /containers/{id}/archive': { query: ['path', 'noOverwriteDirNonDir', 'copyUIDGID'] },
  'POST /commit': {
    query: ['repo', 'tag', 'comment', 'author', 'pause', 'changes'],
    fixed: (f) => ({ container: f.target }),
    body: () => ({ Cmd: ['sh'], Env: ['A=1'], Labels: { a: 'b' } }),
  },
  'GET /containers/{id}/logs': {
    query: ['stdout', 'stderr', 'since', 'until', 'timestamps', 'tail', 'details'],
    fixed: () => ({ follow: '0' }),
    streams: true,
  },
  'POST /containers/{id}/attach': {
    query: ['stream', 'stdin', 'stdout', 'stderr', 'logs', 'detachKeys'],
    streams: true,
  },
  'GET /containers/{id}/attach/ws': { query: ['stream', 'stdin', 'stdout', 'logs'], streams: true },
  'GET /containers/{id}/stats': { query: ['one-shot'], fixed: () => ({ stream: '0' }), streams: true },
  'POST /containers/{id}/exec': {
    body: () => ({ Cmd: ['true'], AttachStdout: true, Env: ['A=1'], User: '', WorkingDir: '/', Tty: false }),
  },
  'POST /exec/{id}/start': { body: () => ({ Detach: true, Tty: false }), streams: true },
  'POST /exec/{id}/resize': { query: ['h', 'w'] },
  'GET /images/json': { query: ['all', 'filters', 'filter', 'digests'] },
  'POST /images/create': {
    query: ['repo', 'tag', 'message', 'changes', 'platform'],
    // A pull from the loopback registry nobody serves, or an import of a (non-tar) body.
    fixed: (f, rng): Record<string, string> =>
      rng.chance(0.5)
        ? { fromImage: loopbackName(f, rng) }
        : { fromSrc: rng.chance(0.8) ? '-' : `http://${f.loopback}/rootfs.tar` },
    registryBound: true,
  },
  'POST /images/load': { query: ['quiet'] },
  'GET /images/get': { query: ['names'], streams: true },
  'POST /images/prune': { query: ['filters'] },
  'GET /images/search': {
    query: ['limit', 'filters'],
    fixed: (f, rng) => ({ term: loopbackName(f, rng) }),
    registryBound: true,
  },
  'POST /auth': {
    // Always a login to the loopback registry: the fuzz is in the other fields.
    body: (f) => ({ username: 'fuzz', password: 'secret', email: '', serveraddress: f.loopback }),
    registryBound: true,
  },
  'GET /images/{name*}/get': { streams: true },
  'POST /images/{name*}/tag': { query: ['repo', 'tag'] },
  'POST /images/{name*}/push': { query: ['tag'], param: loopbackName, registryBound: true },
  'DELETE /images/{name*}': { query: ['force', 'noprune'] },
  'GET /networks': { query: ['filters'] },
  'POST /networks/create': {
    // A valid mutation creates a network: on a subnet of its own, removed at the end.
    body: () => ({
      Name: 'fuzznet',
      Driver: 'bridge',
      Internal: true,
      CheckDuplicate: true,
      Labels: { a: 'b' },
      Options: {},
      IPAM: { Driver: 'default', Config: [{ Subnet: '10.254.253.0/28', Gateway: '10.254.253.1' }] },
    }),
  },
  'POST /networks/prune': { query: ['filters'] },
  'GET /networks/{id}': { query: ['verbose', 'scope'] },
  'POST /networks/{id}/connect': {
    body: (f) => ({
      Container: f.target,
      EndpointConfig: { IPAMConfig: { IPv4Address: '10.254.253.5' }, Aliases: ['a'] },
    }),
  },
  'POST /networks/{id}/disconnect': { body: (f) => ({ Container: f.target, Force: false }) },
  'GET /volumes': { query: ['filters'] },
  'POST /volumes/create': {
    body: () => ({ Name: 'fuzzvol', Driver: 'local', DriverOpts: {}, Labels: { a: 'b' } }),
  },
  'POST /volumes/prune': { query: ['filters'] },
  'DELETE /volumes/{name}': { query: ['force'] },
  'POST /build': {
    // Never `pull` nor `remote` (other than the loopback's): the body is not a context at all.
    query: [
      't',
      'dockerfile',
      'q',
      'nocache',
      'rm',
      'forcerm',
      'buildargs',
      'labels',
      'cachefrom',
      'target',
      'memory',
      'cpusetcpus',
      'shmsize',
      'networkmode',
      'extrahosts',
      'squash',
      'version',
    ],
    fixed: (f, rng): Record<string, string> =>
      rng.chance(0.2) ? { remote: `http://${f.loopback}/context.tar` } : {},
    registryBound: true,
  },
  'POST /build/prune': { query: ['filters', 'all', 'keep-storage'] },
  'GET /distribution/{name*}/json': { param: loopbackName, registryBound: true },
  'GET /events': {
    query: ['since', 'filters'],
    fixed: () => ({ until: String(Math.floor(Date.now() / 1000)) }),
    streams: true,
  },
  'GET /system/df': { query: ['type'] },
};

const versions = ['', '', '', '/v1.41', '/v1.24', '/v1.19', '/v1.12', '/v99.0', '/vx', '/v1.41.1', '/v-1'];

function generateCases(rng: Prng, f: Fixture): Array<{ c: FuzzCase; input: RouteInput }> {
  const cases: Array<{ c: FuzzCase; input: RouteInput }> = [];
  for (const route of allRoutes()) {
    const key = `${route.method} ${route.path}`;
    const input = inputs[key] ?? {};
    for (let i = 0; i < perRoute; i++) {
      const param = (name: string) => {
        if (input.param) return input.param(f, rng).split('/').map(encodeAny).join('/');
        if (name === 'id' && route.path.startsWith('/exec/')) return hostileSegment(rng, [f.exec]);
        if (name === 'id' && route.path.startsWith('/networks/'))
          return hostileSegment(rng, ['bridge', 'none', 'fuzznet']);
        if (name === 'id') return hostileSegment(rng, [f.target]);
        // Images and volumes: names the fuzz may delete or tag, never the fixture's own image.
        return hostileSegment(rng, ['fuzzimg:latest', 'fuzzvol']);
      };
      const path = route.path.replace(/\{(\w+)\*?\}/g, (_, name: string) => param(name));
      const query = hostileQuery(rng, input.query ?? [], input.fixed?.(f, rng) ?? {});
      const headers: Record<string, string> = {};
      let body: string | undefined;
      if (route.method !== 'GET' && route.method !== 'HEAD' && rng.chance(0.8)) {
        body = input.body ? hostileJsonBody(rng, input.body(f)) : JSON.stringify(hostileValue(rng));
        if (key === 'POST /auth') body = authBody(body, f);
        headers['Content-Type'] = rng.chance(0.9)
          ? 'application/json'
          : rng.pick(['text/plain', 'application/x-tar', 'application/json; charset=utf-16', '']);
      }
      if (rng.chance(0.1))
        headers['X-Registry-Auth'] = rng.pick([
          '%%%',
          'e30',
          Buffer.from(JSON.stringify(hostileValue(rng))).toString('base64'),
        ]);
      cases.push({
        c: { method: route.method, path: `${rng.pick(versions)}${path}${query}`, headers, body, note: key },
        input,
      });
    }
  }
  return cases;
}

/**
 * A login body may only ever name the loopback registry: an object (or unparseable text) whose
 * serveraddress is forced back to it, since a login without one goes to Docker Hub.
 */
function authBody(text: string, f: Fixture): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return text; // refused before any login
  }
  const object = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed) ? parsed : {};
  return JSON.stringify({ ...object, serveraddress: f.loopback });
}

/** Runs `cases` a few at a time, in the order given. */
async function runPool<T>(items: T[], width: number, each: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await each(items[next++]);
    }),
  );
}

/** Files and directories named with `marker` anywhere under `dir` (not following symlinks). */
async function findMarked(dir: string, marker: string, out: string[] = []): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return out;
  }
  for (const e of entries) {
    const p = join(dir, e.name);
    if (e.name.includes(marker)) out.push(p);
    if (e.isDirectory() && !p.startsWith('/proc') && !p.startsWith('/sys')) await findMarked(p, marker, out);
  }
  return out;
}

describe('fuzz: svcd under hostile input', { timeout: 15 * 60_000 }, () => {
  let svcd: SvcdInstance;
  let canary: string;
  let fixture: Fixture;
  let pid: number;
  const marker = `svcfuzz${process.pid}`;
  const ledgers: FuzzLedger[] = [];
  /** A ledger per test, so each fails on its own cases; all are summed up at the end. */
  const newLedger = () => {
    const l = new FuzzLedger();
    ledgers.push(l);
    return l;
  };
  const hostFiles = ['/etc/passwd', '/etc/shadow', '/etc/hosts'];
  const links = new Map<string, number>();

  const call = (c: FuzzCase, wait = waitMs) => sendCase({ socketPath: svcd.socket }, c, wait);

  async function createTarget(name: string): Promise<string> {
    await svcd.request('DELETE', `/containers/${name}?force=1`);
    // A shell that ends on SIGTERM (a pid 1 without a handler would ignore it).
    const res = await svcd.request('POST', `/containers/create?name=${name}`, {
      body: { Image: 'busybox', Cmd: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 1; done'] },
    });
    assert.equal(res.status, 201, res.text());
    const id = res.json<{ Id: string }>().Id;
    assert.equal((await svcd.request('POST', `/containers/${id}/start`)).status, 204);
    return id;
  }

  /** The fuzz may stop, pause, rename or remove the target: bring it back before each route. */
  let ensuring: Promise<void> = Promise.resolve();
  /** One check at a time: the pool's workers would otherwise race to recreate it. */
  function ensureTarget(): Promise<void> {
    ensuring = ensuring.then(restoreTarget);
    return ensuring;
  }

  async function restoreTarget(): Promise<void> {
    const res = await svcd.request('GET', `/containers/${fixture.target}/json`);
    const state =
      res.status === 200 ? res.json<{ State: { Running: boolean; Paused: boolean } }>().State : undefined;
    if (state?.Running && !state.Paused) return;
    if (state?.Paused) await svcd.request('POST', `/containers/${fixture.target}/unpause`);
    else if (state) await svcd.request('POST', `/containers/${fixture.target}/start`);
    else fixture.target = await createTarget('fuzz-target');
    const exec = await svcd.request('POST', `/containers/${fixture.target}/exec`, {
      body: { Cmd: ['true'] },
    });
    if (exec.status === 201) fixture.exec = exec.json<{ Id: string }>().Id;
  }

  /** An image `busybox` of the host's static busybox with the applets the fuzz runs. */
  async function importBusyboxImage(): Promise<void> {
    const applets = ['sh', 'sleep', 'true', 'cat', 'ls'];
    const rootfs = await tarOf([
      [{ name: 'bin', type: 'directory' }],
      [{ name: 'tmp', type: 'directory', mode: 0o1777 }],
      [{ name: 'etc', type: 'directory' }],
      [{ name: 'bin/busybox', mode: 0o755 }, await readFile('/bin/busybox')],
      ...applets.map((a): [{ name: string; type: 'symlink'; linkname: string }] => [
        { name: `bin/${a}`, type: 'symlink', linkname: 'busybox' },
      ]),
    ]);
    const res = await svcd.request('POST', '/images/create?fromSrc=-&repo=busybox&tag=latest', {
      body: rootfs,
      headers: { 'Content-Type': 'application/x-tar' },
    });
    assert.equal(res.status, 200, res.text());
    assert.doesNotMatch(res.text(), /"error"/);
  }

  before(async () => {
    svcd = await startSvcd({ keepLog: true });
    pid = svcd.pid!;
    canary = await mkdtemp(join(tmpdir(), 'svc-fuzz-canary-'));
    for (const f of hostFiles) links.set(f, (await stat(f)).nlink);
    await importBusyboxImage();
    const target = await createTarget('fuzz-target');
    const exec = await svcd.request('POST', `/containers/${target}/exec`, { body: { Cmd: ['true'] } });
    fixture = { target, exec: exec.json<{ Id: string }>().Id, loopback: `127.0.0.1:${await closedPort()}` };
    console.log(`seed ${seed}; svcd pid ${pid} RSS ${rssMiB(pid)} MiB before`);
  });

  after(async () => {
    const sent = ledgers.reduce((n, l) => n + l.sent, 0);
    if (svcd?.pid) console.log(`svcd RSS ${rssMiB(svcd.pid)} MiB after ${sent} hostile requests`);
    const nets = svcd ? await svcd.request('GET', '/networks') : undefined;
    for (const n of nets?.status === 200 ? nets.json<Array<{ Id: string; Name: string }>>() : []) {
      if (!['bridge', 'host', 'none'].includes(n.Name)) await svcd.request('DELETE', `/networks/${n.Id}`);
    }
    await destroySvcd(svcd);
    if (canary) await rm(canary, { recursive: true, force: true });
  });

  test('archive PUT, image load and build refuse or confine every escaping entry', async () => {
    const ledger = newLedger();
    const archives = await hostileTars(canary, marker);
    const id = await createTarget('fuzz-archive');
    const putPaths = ['/', '/tmp', '/etc', '/dev', '/proc', '/sys', '../../..', '/tmp/../../..'];
    for (const a of archives) {
      for (const path of putPaths) {
        const c: FuzzCase = {
          method: 'PUT',
          path: `/containers/${id}/archive?path=${encodeURIComponent(path)}`,
          headers: { 'Content-Type': 'application/x-tar' },
          body: a.body,
          note: `archive PUT ${a.name} at ${path}`,
        };
        ledger.record(c, await call(c));
      }
      // As image load's outer archive, and as a layer of a well-formed docker-save archive.
      for (const body of [a.body, await saveArchiveWith(a.body)]) {
        const c: FuzzCase = {
          method: 'POST',
          path: '/images/load?quiet=1',
          headers: { 'Content-Type': 'application/x-tar' },
          body,
          note: `image load ${a.name}`,
        };
        ledger.record(c, await call(c));
      }
      // As a build context, FROM scratch: the Dockerfile copies what the context holds.
      const context = await buildContextWith(a.body);
      const build: FuzzCase = {
        method: 'POST',
        path: '/build?rm=1&forcerm=1',
        headers: { 'Content-Type': 'application/x-tar' },
        body: context,
        note: `build ${a.name}`,
      };
      ledger.record(build, await call(build));
    }
    // Sources and manifests that point outside the archive itself.
    for (const dockerfile of [
      'FROM scratch\nCOPY ../../../../etc/shadow /x\n',
      'FROM scratch\nADD /etc/passwd /x\n',
      'FROM scratch\nCOPY escape/ /x/\n',
      'FROM busybox\nCOPY --from=busybox ../../../etc/shadow /x\n',
    ]) {
      const body = await tarOf([
        [{ name: 'Dockerfile' }, dockerfile],
        [{ name: 'escape', type: 'symlink', linkname: '/etc' }],
      ]);
      const c: FuzzCase = {
        method: 'POST',
        path: '/build?rm=1',
        headers: { 'Content-Type': 'application/x-tar' },
        body,
        note: `build ${JSON.stringify(dockerfile)}`,
      };
      ledger.record(c, await call(c));
    }
    for (const dockerfile of ['../../../../etc/passwd', '/etc/passwd', 'escape/passwd']) {
      const body = await tarOf([
        [{ name: 'Dockerfile' }, 'FROM scratch\n'],
        [{ name: 'escape', type: 'symlink', linkname: '/etc' }],
      ]);
      const c: FuzzCase = {
        method: 'POST',
        path: `/build?dockerfile=${encodeURIComponent(dockerfile)}`,
        headers: { 'Content-Type': 'application/x-tar' },
        body,
        note: `build -f ${dockerfile}`,
      };
      ledger.record(c, await call(c));
    }
    for (const manifest of [
      [{ Config: '../../../../etc/passwd', RepoTags: ['fuzzload:1'], Layers: [] }],
      [{ Config: '/etc/passwd', RepoTags: ['fuzzload:1'], Layers: ['/etc/shadow'] }],
      [{ Config: 'c.json', RepoTags: ['fuzzload:1'], Layers: ['../../../../../etc/shadow'] }],
    ]) {
      const body = await tarOf([
        [{ name: 'manifest.json' }, JSON.stringify(manifest)],
        [{ name: 'c.json' }, '{}'],
      ]);
      const c: FuzzCase = {
        method: 'POST',
        path: '/images/load',
        headers: { 'Content-Type': 'application/x-tar' },
        body,
        note: `image load manifest ${JSON.stringify(manifest)}`,
      };
      ledger.record(c, await call(c));
    }
    console.log(ledger.summary());
    ledger.assertClean();
    await assertNothingEscaped();
  });

  /** A docker-save archive whose one layer is `layer`, with the config naming its diff ID. */
  async function saveArchiveWith(layer: Buffer): Promise<Buffer> {
    const diffId = `sha256:${createHash('sha256').update(layer).digest('hex')}`;
    const config = JSON.stringify({
      architecture: 'amd64',
      os: 'linux',
      config: {},
      rootfs: { type: 'layers', diff_ids: [diffId] },
    });
    const configName = `${createHash('sha256').update(config).digest('hex')}.json`;
    return tarOf([
      [
        { name: 'manifest.json' },
        JSON.stringify([{ Config: configName, RepoTags: ['fuzzload:latest'], Layers: ['l/layer.tar'] }]),
      ],
      [{ name: configName }, config],
      [{ name: 'l', type: 'directory' }],
      [{ name: 'l/layer.tar' }, layer],
    ]);
  }

  /** `entries` (a tar) with a Dockerfile in front that copies everything into a scratch image. */
  async function buildContextWith(entries: Buffer): Promise<Buffer> {
    const dockerfile = await tarOf([[{ name: 'Dockerfile' }, 'FROM scratch\nCOPY . /\n']]);
    // Two tars end to end: the first one's end-of-archive blocks are dropped.
    return Buffer.concat([dockerfile.subarray(0, dockerfile.length - 1024), entries]);
  }

  async function assertNothingEscaped(): Promise<void> {
    assert.deepEqual(await readdir(canary), [], 'the canary directory outside the data root stays empty');
    const outside = [
      ...(await readdir('/')).filter((n) => n.includes(marker)),
      ...(await readdir(tmpdir())).filter((n) => n.includes(marker)),
      ...(await readdir(svcd.dir)).filter((n) => n.includes(marker)),
    ];
    assert.deepEqual(outside, [], 'nothing written in /, the temp dir or beside the data root');
    // Inside the data root, marked files may only be in the containers' and images' filesystems
    // (snapshots, and each container's rootfs mount).
    const inside = (await findMarked(svcd.dataRoot, marker)).filter(
      (p) =>
        !p.startsWith(join(svcd.dataRoot, 'containerd/')) &&
        !/^containers\/[0-9a-f]{64}\/rootfs\//.test(relative(svcd.dataRoot, p)),
    );
    assert.deepEqual(inside, [], 'marked files only in container or image filesystems');
    for (const [f, n] of links) assert.equal((await stat(f)).nlink, n, `${f} gained no hard link`);
  }

  test('a login body with a wrongly typed field is refused before any registry is asked', async () => {
    // Only fields other than serveraddress: should the check go, the login still names loopback.
    for (const [field, value] of [
      ['username', 5],
      ['password', ['x']],
      ['auth', { a: 1 }],
      ['identitytoken', true],
    ] as const) {
      const res = await svcd.request('POST', '/auth', {
        body: { username: 'fuzz', password: 'x', serveraddress: fixture.loopback, [field]: value },
      });
      assert.equal(res.status, 400, `${field}: ${res.text()}`);
      assert.match(
        res.json<{ message: string }>().message,
        new RegExp(`AuthConfig\\.${field} must be a string`),
      );
    }
  });

  test('decompression bombs are streamed, not held in memory', async () => {
    const ledger = newLedger();
    const before = rssMiB(pid);
    const bomb = await gzipBomb(512 * 1024 * 1024);
    const id = await createTarget('fuzz-bomb');
    const cases: FuzzCase[] = [
      {
        method: 'PUT',
        path: `/containers/${id}/archive?path=/tmp`,
        headers: { 'Content-Type': 'application/x-tar' },
        body: bomb,
        note: 'archive PUT bomb',
      },
      {
        method: 'POST',
        path: '/images/load',
        headers: { 'Content-Type': 'application/x-tar' },
        body: bomb,
        note: 'image load bomb',
      },
      {
        method: 'POST',
        path: '/images/load',
        headers: { 'Content-Type': 'application/x-tar' },
        body: await saveArchiveWith(bomb),
        note: 'image load bomb layer',
      },
      {
        method: 'POST',
        path: '/images/load',
        body: await nestedGzip(bomb, 3),
        note: 'image load nested gzip',
      },
      {
        method: 'POST',
        path: '/images/create?fromSrc=-&repo=fuzzbomb',
        headers: { 'Content-Type': 'application/x-tar' },
        body: bomb,
        note: 'import bomb',
      },
      {
        method: 'POST',
        path: '/build?rm=1',
        headers: { 'Content-Type': 'application/x-tar' },
        body: await gzipBomb(512 * 1024 * 1024, [
          [{ name: 'Dockerfile' }, 'FROM scratch\nCOPY Dockerfile /\n'],
        ]),
        note: 'build context bomb',
      },
    ];
    for (const c of cases) ledger.record(c, await sendCase({ socketPath: svcd.socket }, c, 120_000));
    await svcd.request('DELETE', `/containers/${id}?force=1`);
    const afterBombs = rssMiB(pid);
    console.log(
      `bombs of ${bomb.length} bytes expanding to 512 MiB: svcd RSS ${before} -> ${afterBombs} MiB`,
    );
    assert.ok(afterBombs < before + 256, `svcd's RSS grew from ${before} to ${afterBombs} MiB`);
    console.log(ledger.summary());
    ledger.assertClean();
  });

  test(`every route, ${perRoute} hostile requests each`, async () => {
    const ledger = newLedger();
    const rng = new Prng(seed);
    const cases = generateCases(rng, fixture);
    let route = '';
    await runPool(cases, 4, async ({ c, input }) => {
      if (c.note !== route) {
        route = c.note;
        await ensureTarget();
      }
      // A stream that has not even sent its status (wait, attach) is cut sooner.
      const outcome = await call(c, input.streams ? 1500 : input.lifecycle ? 60_000 : waitMs);
      ledger.record(
        c,
        outcome,
        rightServerError(input, outcome.status, outcome.body),
        input.streams ?? false,
      );
    });
    console.log(`seed ${seed}, ${allRoutes().length} routes: ${ledger.summary()}`);
    ledger.assertClean();
    assert.equal((await svcd.request('GET', '/_ping')).status, 200);
    assert.equal(svcd.pid, pid, 'the same svcd answers');
    assert.doesNotMatch(svcd.log, /docker\.io|registry-1\./, 'no request left for Docker Hub');
  });

  test('oversized headers, truncated and stalled bodies', async () => {
    const target = { socketPath: svcd.socket };
    const big = await rawRequest(target, {
      head: `GET /_ping HTTP/1.1\r\nHost: x\r\nX-Fuzz: ${'a'.repeat(100_000)}`,
      waitMs,
    });
    assert.ok(
      big.status === 431 || big.status === 400 || (big.closed && big.status === undefined),
      JSON.stringify(big),
    );
    const many = Array.from({ length: 2000 }, (_, i) => `X-H${i}: v`).join('\r\n');
    const lots = await rawRequest(target, { head: `GET /_ping HTTP/1.1\r\nHost: x\r\n${many}`, waitMs });
    assert.ok(lots.status === undefined || lots.status < 500, JSON.stringify(lots));
    // A body shorter than its Content-Length, the client then closing its side.
    for (const path of [
      '/containers/create',
      '/images/load',
      '/build',
      `/containers/${fixture.target}/archive?path=/tmp`,
      '/volumes/create',
    ]) {
      const method = path.includes('archive') ? 'PUT' : 'POST';
      const truncated = await rawRequest(target, {
        head: `${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100000`,
        body: '{"Image":"busybox"',
        end: true,
        waitMs,
      });
      assert.ok(
        truncated.status === undefined || truncated.status < 500,
        `${path}: ${JSON.stringify(truncated)}`,
      );
    }
    // Slowloris: stalled heads and bodies hold sockets, yet svcd keeps answering others.
    const stalled = [
      ...Array.from({ length: 20 }, () =>
        rawRequest(target, { head: 'GET /_ping HTTP/1.1\r\nHost: x\r\nX-Slow: 1', waitMs: 3000 }),
      ),
      ...['/containers/create', '/images/load', '/build', '/auth'].map((p) =>
        rawRequest(target, {
          head: `POST ${p} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 5000`,
          body: '{"a":',
          waitMs: 3000,
        }),
      ),
    ];
    const ping = await sendCase(
      target,
      { method: 'GET', path: '/_ping', note: 'ping during slowloris' },
      waitMs,
    );
    assert.equal(ping.status, 200, 'svcd answers while slow clients hold sockets');
    await Promise.all(stalled);
    assert.equal((await svcd.request('GET', '/_ping')).status, 200);
    assert.equal(svcd.pid, pid);
    await assertNothingEscaped();
    const tmp = await readdir(join(svcd.dataRoot, 'tmp'), { recursive: true, withFileTypes: true });
    const files = tmp.filter((e) => !e.isDirectory()).map((e) => join(e.parentPath ?? e.path, e.name));
    assert.deepEqual(files, [], 'no temporary file left by aborted uploads');
  });
});
