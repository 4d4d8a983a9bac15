// The layer explorer's view: the diff rules alone, then the gateway route reading an archive in the
// Docker 20.10 layout (<id>/layer.tar, manifest.json last) that an engine serves on /images/{name}/get.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ImageLayerFiles } from '../../../daemon/api/image-layer-types';
import { Supervisor } from '../supervisor/supervisor';
import type { AddressInfo } from 'node:net';
import { startGateway, type Gateway } from './gateway';
import { sendLayerFiles } from './image-layers';
import type { Upstreams } from './upstream';
import { layerChanges } from './layer-changes';

const f = (path: string, size = 1) => ({ path, type: 'file' as const, size });
const d = (path: string) => ({ path, type: 'directory' as const, size: 0 });
const brief = (layers: ReturnType<typeof layerChanges>) =>
  layers.map((l) => l.map((c) => `${c.kind} ${c.path}${c.size ? ` ${c.size}` : ''}`));

describe('layer changes', () => {
  test('added, changed, removed by whiteout, opaque directories, against the layers below', () => {
    const layers = layerChanges([
      [d('./'), d('./etc'), f('./etc/os', 10), d('./app'), f('./app/a', 3), f('./app/b', 4), d('./tmp')],
      [
        d('./etc'),
        f('./etc/os', 12),
        f('./etc/.wh.gone'),
        f('./.wh.tmp'),
        d('./app'),
        f('./app/.wh..wh..opq', 0),
        f('./app/c', 5),
        { path: './app/link', type: 'symlink' as const, size: 0, target: 'c' },
      ],
    ]);
    assert.deepEqual(brief(layers), [
      ['added app', 'added app/a 3', 'added app/b 4', 'added etc', 'added etc/os 10', 'added tmp'],
      [
        'opaque app',
        'removed app/a 3',
        'removed app/b 4',
        'added app/c 5',
        'added app/link',
        'removed etc/gone',
        'changed etc/os 12',
        'removed tmp',
      ],
    ]);
    assert.equal(layers[1].find((c) => c.path === 'app/link')?.target, 'c');
  });
});

describe('GET /engine/images/{name}/layer-files', () => {
  let dir: string;
  let engine: http.Server;
  let gw: Gateway;
  let archive: Buffer;
  let upstreams: Upstreams;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'layer-files-test-'));
    const tarOf = (name: string, files: Record<string, string>) => {
      const root = join(dir, name);
      for (const [p, content] of Object.entries(files)) {
        mkdirSync(join(root, p, '..'), { recursive: true });
        writeFileSync(join(root, p), content);
      }
      execFileSync('tar', ['-cf', join(dir, `${name}.tar`), '-C', root, '.']);
      return join(dir, `${name}.tar`);
    };
    const out = join(dir, 'archive');
    const ids = ['1'.repeat(64), '2'.repeat(64)];
    const layerTars = [
      tarOf('l1', { 'bin/tool': 'v1', 'etc/motd': 'hello', 'var/cache/x': 'xx' }),
      tarOf('l2', { 'bin/tool': 'v2!', 'etc/.wh.motd': '', 'var/cache/.wh..wh..opq': '', 'srv/new': 'new' }),
    ];
    ids.forEach((id, i) => {
      mkdirSync(join(out, id), { recursive: true });
      writeFileSync(join(out, id, 'layer.tar'), readFileSync(layerTars[i]));
    });
    writeFileSync(join(out, 'c'.repeat(64) + '.json'), '{}');
    writeFileSync(
      join(out, 'manifest.json'),
      JSON.stringify([
        { Config: `${'c'.repeat(64)}.json`, RepoTags: ['x/y:1'], Layers: ids.map((id) => `${id}/layer.tar`) },
      ]),
    );
    // Layers first and manifest.json last, as Docker 20.10 writes them.
    execFileSync('tar', [
      '-cf',
      join(dir, 'saved.tar'),
      '-C',
      out,
      ...ids,
      'c'.repeat(64) + '.json',
      'manifest.json',
    ]);
    archive = readFileSync(join(dir, 'saved.tar'));
    engine = http.createServer((req, res) => {
      if (req.url === '/images/x%2Fy%3A1/get') return res.end(archive);
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ message: `No such image: ${decodeURIComponent(req.url ?? '')}` }));
    });
    await new Promise<void>((r) => engine.listen(join(dir, 'engine.sock'), r));
    upstreams = { engineSocket: join(dir, 'engine.sock'), registryUrl: 'http://127.0.0.1:1' };
    gw = await startGateway({
      ...upstreams,
      services: new Supervisor([]),
    });
  });

  after(async () => {
    await gw.close();
    engine.closeAllConnections();
    await new Promise((r) => engine.close(r));
    rmSync(dir, { recursive: true, force: true });
  });

  const get = (name: string) =>
    fetch(`${gw.url}/engine/images/${encodeURIComponent(name)}/layer-files`, {
      headers: { authorization: `Bearer ${gw.token}` },
    });

  test("lists each layer's changes in the manifest's order, with the layer tar's size", async () => {
    const res = await get('x/y:1');
    assert.equal(res.status, 200);
    const body = (await res.json()) as ImageLayerFiles;
    assert.equal(body.truncated, false);
    assert.deepEqual(
      body.layers.map((l) => l.archivePath),
      ['1'.repeat(64), '2'.repeat(64)].map((id) => `${id}/layer.tar`),
    );
    assert.equal(body.layers[0].tarSize, readFileSync(join(dir, 'l1.tar')).length);
    const files = body.layers.map((l) =>
      l.changes.filter((c) => c.type !== 'directory' || c.kind !== 'added').map((c) => `${c.kind} ${c.path}`),
    );
    assert.deepEqual(files[0], ['added bin/tool', 'added etc/motd', 'added var/cache/x']);
    assert.deepEqual(files[1], [
      'changed bin/tool',
      'removed etc/motd',
      'added srv/new',
      'opaque var/cache',
      'removed var/cache/x',
    ]);
    assert.ok(body.layers[1].changes.some((c) => c.path === 'srv/new' && c.kind === 'added' && c.size === 3));
  });

  test('lists at most so many entries, and says the list is cut', async () => {
    // The same route over the same engine, with a bound of 5 entries.
    const bounded = http.createServer(
      (req, res) =>
        void sendLayerFiles(req, res, { prefix: '/engine', target: 'engine' }, upstreams, 'x/y:1', 5),
    );
    await new Promise<void>((r) => bounded.listen(0, '127.0.0.1', r));
    try {
      const res = await fetch(`http://127.0.0.1:${(bounded.address() as AddressInfo).port}/`);
      const body = (await res.json()) as ImageLayerFiles;
      assert.equal(body.truncated, true);
      const listed = body.layers.flatMap((l) => l.changes).filter((c) => c.kind !== 'opaque');
      assert.ok(listed.length <= 5, JSON.stringify(listed));
      assert.equal(body.layers.length, 2);
    } finally {
      await new Promise((r) => bounded.close(r));
    }
  });

  test("passes on the engine's error for an image it does not have", async () => {
    const res = await get('nope:1');
    assert.equal(res.status, 404);
    assert.match(((await res.json()) as { message: string }).message, /No such image: \/images\/nope:1\/get/);
  });
});
