// The preload's contract, without Electron (its binary cannot run here): the built preload runs
// in a context of its own with stand-ins for contextBridge and ipcRenderer, and its invokes are
// answered by the handlers servePreload registers, as ipcMain would answer them. So the page's
// calls, the channel names on both sides and the answers are the real ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { servePreload, type PreloadParts } from './preload-api';

type Listener = (event: unknown, ...args: unknown[]) => unknown;

/** Runs the preload against handlers served by servePreload; answers what it exposed and used. */
function loadPreload(parts: PreloadParts) {
  const handlers = new Map<string, Listener>();
  servePreload({ handle: (channel, listener) => void handlers.set(channel, listener) }, parts);
  const exposed: Record<string, unknown> = {};
  const used: string[] = [];
  const ipcRenderer = {
    invoke: async (channel: string, ...args: unknown[]) => {
      const handler = handlers.get(channel);
      if (!handler) throw new Error(`No handler registered for '${channel}'`);
      return handler({}, ...args);
    },
    // Anything else the preload might call is recorded, so the test sees it.
    sendSync: (channel: string) => void used.push(`sendSync ${channel}`),
    send: (channel: string) => void used.push(`send ${channel}`),
  };
  const electron = {
    ipcRenderer,
    contextBridge: { exposeInMainWorld: (key: string, api: unknown) => void (exposed[key] = api) },
  };
  const source = readFileSync(join(__dirname, '..', 'preload', 'preload.js'), 'utf8');
  const require = (name: string) => {
    if (name !== 'electron') throw new Error(`a sandboxed preload cannot require ${name}`);
    return electron;
  };
  vm.runInNewContext(source, { require, exports: {}, module: { exports: {} } });
  return { api: exposed.svcDesktop as Record<string, () => Promise<unknown>>, used };
}

const folder = { folder: 'app', files: [{ path: 'Dockerfile', data: new Uint8Array([70]), mtime: 1 }] };

test('the page asks for the gateway with invoke and gets its address and token', async () => {
  const { api, used } = loadPreload({
    gateway: { url: 'http://127.0.0.1:4567', token: 'launch-token' },
    chooseFolder: async () => folder,
  });
  assert.deepEqual(Object.keys(api).sort(), ['chooseFolder', 'connection'], 'nothing else is exposed');
  assert.ok(Object.isFrozen(api), 'the page cannot change what it was given');
  assert.deepEqual(await api.connection(), { gatewayUrl: 'http://127.0.0.1:4567', token: 'launch-token' });
  assert.deepEqual(used, [], 'the preload never blocks the page on the main process');
});

test('the folder dialog answers the files chosen, or nothing when cancelled', async () => {
  let answer: typeof folder | undefined = folder;
  const { api } = loadPreload({
    gateway: { url: 'http://127.0.0.1:1', token: 't' },
    chooseFolder: async () => answer,
  });
  assert.deepEqual(await api.chooseFolder(), folder);
  answer = undefined;
  assert.equal(await api.chooseFolder(), undefined);
});
