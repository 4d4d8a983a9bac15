// The engine choice against real sockets: a real svcd whose socket belongs to a group (as the
// system svcd's belongs to `svc`), probed by the rootless test user with and without that group,
// a path with no socket, a socket nobody listens on; and the choice kept in the settings file
// and changed through the gateway's /api/engine-mode, as root with its own rootful engine.
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { EngineChoice, EngineModePreference } from '../../../daemon/api/desktop-types';
import { ensureRootlessUser, rootlessSkipReason } from '../../../daemon/testing/rootless-harness';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../daemon/testing/svcd-harness';
import { freePort } from '../../../daemon/testing/distribution';
import { startDesktop, type Desktop } from '../desktop';
import { chooseEngine } from './engine-choice';
import { ownEngineSocket } from './default-services';
import { systemSvcdSocket } from '../../../daemon/lib/svcd-launch';

const run = promisify(execFile);
/** A gid no group has: svcd's --group takes a number, the test user is given it by setpriv. */
const SOCKET_GID = 300_777;

/** chooseEngine run by the unprivileged test user (in `groups`), as the app started by that user would. */
async function chooseAsUser(
  user: { uid: number; gid: number },
  groups: number[],
  input: { preference: EngineModePreference; systemSocket: string },
): Promise<EngineChoice> {
  const script = `require(${JSON.stringify(require.resolve('./engine-choice'))})
    .chooseEngine(${JSON.stringify({ ...input, isRoot: false, ownSocket: '/nonexistent/own.sock' })})
    .then((c) => process.stdout.write(JSON.stringify(c)))`;
  const { stdout } = await run('setpriv', [
    `--reuid=${user.uid}`,
    `--regid=${user.gid}`,
    groups.length ? `--groups=${groups.join(',')}` : '--clear-groups',
    process.execPath,
    '-e',
    script,
  ]);
  return JSON.parse(stdout) as EngineChoice;
}

describe('engine choice', { skip: rootlessSkipReason() }, () => {
  let svcd: SvcdInstance;
  let user: { uid: number; gid: number };
  let dir: string;

  before(async () => {
    user = ensureRootlessUser();
    dir = await mkdtemp(join(tmpdir(), 'engine-choice-'));
    await chmod(dir, 0o755);
    svcd = await startSvcd({ args: ['--group', String(SOCKET_GID)] });
    // The socket's directory is open to all, as /run/svc is; the socket itself is 0660.
    await chmod(svcd.dir, 0o711);
  });
  after(async () => {
    await destroySvcd(svcd);
    await rm(dir, { recursive: true, force: true });
  });

  test('a member of the socket group gets the system engine', async () => {
    const c = await chooseAsUser(user, [SOCKET_GID], { preference: 'auto', systemSocket: svcd.socket });
    assert.equal(c.mode, 'system');
    assert.equal(c.socket, svcd.socket);
    assert.equal(c.reason, `the system engine answers on ${svcd.socket}`);
    assert.deepEqual(c.available, ['system', 'rootless']);
  });

  test('not in the group: its own rootless engine, and the reason says which group to join', async () => {
    const c = await chooseAsUser(user, [], { preference: 'auto', systemSocket: svcd.socket });
    assert.equal(c.mode, 'rootless');
    assert.equal(c.socket, '/nonexistent/own.sock');
    assert.equal(c.system.reachable, false);
    assert.match(c.reason, /is not open to you: it belongs to the svc group \(sudo usermod -aG svc \$USER/);
    assert.match(c.reason, /so the app runs its own rootless engine$/);
  });

  test('no socket, or a socket nobody listens on: rootless, saying which', async () => {
    const none = await chooseAsUser(user, [], { preference: 'auto', systemSocket: join(dir, 'none.sock') });
    assert.equal(none.mode, 'rootless');
    assert.match(none.reason, /^no system engine: .*none\.sock does not exist/);
    // A socket file bound and never listened on: connecting is refused.
    const stale = join(dir, 'stale.sock');
    execFileSync('python3', [
      '-c',
      'import socket,sys; socket.socket(socket.AF_UNIX).bind(sys.argv[1])',
      stale,
    ]);
    await chmod(stale, 0o777);
    const refused = await chooseAsUser(user, [], { preference: 'auto', systemSocket: stale });
    assert.equal(refused.mode, 'rootless');
    assert.match(refused.reason, /^nothing listens on .*stale\.sock/);
  });

  test('a pick in Settings wins over what answers, and says so', async () => {
    const system = await chooseAsUser(user, [], { preference: 'system', systemSocket: svcd.socket });
    assert.equal(system.mode, 'system');
    assert.match(system.reason, /^chosen in Settings, but .* is not open to you/);
    const own = await chooseAsUser(user, [SOCKET_GID], { preference: 'rootless', systemSocket: svcd.socket });
    assert.equal(own.mode, 'rootless');
    assert.equal(own.reason, 'chosen in Settings: the app runs its own rootless engine');
    const rootful = await chooseAsUser(user, [SOCKET_GID], {
      preference: 'rootful',
      systemSocket: svcd.socket,
    });
    assert.equal(rootful.mode, 'system');
    assert.match(rootful.reason, /^rootful was chosen, but only root can run it; the system engine answers/);
  });

  test('as root the own engine is rootful', async () => {
    const c = await chooseEngine({
      preference: 'auto',
      isRoot: true,
      systemSocket: join(dir, 'none.sock'),
      ownSocket: svcd.socket,
    });
    assert.deepEqual([c.mode, c.socket, c.available], ['rootful', svcd.socket, ['system', 'rootful']]);
  });

  test("as root the app's own engine has its own socket, not the system engine's", async () => {
    const own = ownEngineSocket({ root: dir, dataDir: join(dir, 'desktop') });
    assert.equal(own, join(dir, 'desktop', 'svcd.sock'));
    assert.notEqual(own, systemSvcdSocket);
    // So with no system engine, what Settings says of it stays true while the app's own runs.
    const c = await chooseEngine({
      preference: 'auto',
      isRoot: true,
      systemSocket: join(dir, 'none.sock'),
      ownSocket: own,
    });
    assert.equal(c.socket, own);
    assert.match(c.reason, /none\.sock does not exist .*so the app runs its own engine as root$/);
  });

  describe('in the app', () => {
    let desktop: Desktop | undefined;
    const dataDir = () => join(dir, 'desktop');
    const open = async () =>
      (desktop = await startDesktop({
        dataDir: dataDir(),
        systemSocket: svcd.socket,
        // The app's own engine on the same socket (as root's own and the system's are): adopted.
        engineSocket: svcd.socket,
        registryPort: await freePort(),
      }));
    const api = async (method: string, body?: unknown) => {
      const res = await fetch(`${desktop!.gateway.url}/api/engine-mode`, {
        method,
        headers: { authorization: `Bearer ${desktop!.gateway.token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as EngineChoice & { message?: string } };
    };
    after(() => desktop?.stop());

    test('Settings show the mode and why; a pick is applied and kept for the next start', async () => {
      await open();
      const first = await api('GET');
      assert.equal(first.status, 200);
      assert.deepEqual([first.body.mode, first.body.preference], ['system', 'auto']);
      // The system engine is watched, never started or stopped by the app.
      for (let i = 0; i < 50 && desktop!.supervisor.state('svcd')?.status !== 'up'; i++)
        await new Promise((r) => setTimeout(r, 100));
      assert.deepEqual(
        [desktop!.supervisor.state('svcd')?.status, desktop!.supervisor.state('svcd')?.adopted],
        ['up', true],
      );
      const refused = await api('PUT', { preference: 'rootless' });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message!, /rootless is not available here \(not as root\)/);
      const picked = await api('PUT', { preference: 'rootful' });
      assert.deepEqual(
        [picked.status, picked.body.mode, picked.body.preference],
        [200, 'rootful', 'rootful'],
      );
      assert.equal(picked.body.reason, 'chosen in Settings: the app runs its own engine as root');
      await desktop!.stop();
      desktop = undefined;
      await open();
      const again = await api('GET');
      assert.deepEqual([again.body.mode, again.body.preference], ['rootful', 'rootful']);
      // The engine answers through the gateway whichever mode.
      const ping = await fetch(`${desktop!.gateway.url}/engine/_ping`, {
        headers: { authorization: `Bearer ${desktop!.gateway.token}` },
      });
      assert.equal(await ping.text(), 'OK');
    });
  });
});
