import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopRunningContainers } from './stop-containers';
import { SettingsFile } from './desktop-settings';

const dir = mkdtempSync(join(tmpdir(), 'stop-containers-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('stops each running container and reports the ones the engine refused', async () => {
  const stopped: string[] = [];
  const socket = join(dir, 'engine.sock');
  const engine = http.createServer((req, res) => {
    if (req.url === '/containers/json')
      return res.end(JSON.stringify([{ Id: 'a'.repeat(64) }, { Id: 'b'.repeat(64) }]));
    const m = /^\/containers\/(\w+)\/stop\?t=10$/.exec(req.url ?? '');
    if (m && m[1].startsWith('a')) {
      stopped.push(m[1]);
      res.writeHead(204).end();
      return;
    }
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"message":"cannot kill"}');
  });
  await new Promise<void>((r) => engine.listen(socket, r));
  const failures = await stopRunningContainers(socket);
  await new Promise((r) => engine.close(r));
  assert.deepEqual(stopped, ['a'.repeat(64)]);
  assert.deepEqual(failures, ['bbbbbbbbbbbb: 500 {"message":"cannot kill"}']);
});

test('an engine that does not answer has nothing to stop', async () => {
  assert.deepEqual(await stopRunningContainers(join(dir, 'nobody.sock')), []);
});

test('settings keep known keys of the right type, across instances', () => {
  const file = new SettingsFile(join(dir, 'data'));
  assert.deepEqual(file.read(), { stopContainersOnQuit: false });
  file.update({ stopContainersOnQuit: true, unknown: 1 });
  file.update({ stopContainersOnQuit: 'yes' });
  assert.deepEqual(new SettingsFile(join(dir, 'data')).read(), { stopContainersOnQuit: true });
});
