// The desktop app as a person starts it: web mode run by an unprivileged user (the rootless test
// user, with its own HOME and XDG_RUNTIME_DIR), which brings up its own rootless svcd. In
// Chromium: Settings say which engine and why, the run dialog starts a container, its logs show,
// and a terminal gets a shell in it that runs a command. Then the same user as a member of a
// root svcd's socket group: the app takes that system engine, and Settings move it onto its own
// rootless engine and back.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chmod } from 'node:fs/promises';
import type { Page } from 'playwright-core';
import { importBusybox } from '../daemon/testing/busybox-image';
import { engineRequest } from '../daemon/testing/engine-client';
import { pollUntil } from '../daemon/testing/poll';
import { rootlessSkipReason } from '../daemon/testing/rootless-harness';
import { destroySvcd, startSvcd, type SvcdInstance } from '../daemon/testing/svcd-harness';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';

const NAME = 'e2e-rootless';
const skip = missingPrerequisite() ?? rootlessSkipReason();
/** The system engine's socket group: a gid no group has (svcd's --group takes a number). */
const SOCKET_GID = 300_778;

const until = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000) =>
  pollUntil(what, probe, { timeoutMs, intervalMs: 200 });

describe('web mode as a normal user, on its rootless engine', { skip }, () => {
  let session: Session;
  let page: Page;
  const tab = (name: string) => page.getByRole('tab', { name }).click();

  before(async () => {
    session = await startSession({ rootless: true });
    page = session.page;
    // The DOCKER_HOST web mode printed: the user's own socket under XDG_RUNTIME_DIR.
    assert.equal(session.app.dockerHost, `unix://${session.app.dir}/run/svcd.sock`);
    const socket = session.app.dockerHost.slice('unix://'.length);
    await importBusybox({ request: (method, path, opts) => engineRequest(socket, method, path, opts) });
  });

  after(async () => {
    await session?.stop();
  });

  test('settings say the engine is the own rootless one, and why', async () => {
    await page.goto(`${session.app.launchUrl}#/settings`);
    const mode = page.getByTestId('engine-mode');
    await mode.getByTestId('engine-mode-current').filter({ hasText: 'own rootless engine' }).waitFor();
    assert.match(
      await mode.getByTestId('engine-mode-reason').innerText(),
      /^no system engine: .*system\.sock does not exist .*so the app runs its own rootless engine$/,
    );
    // A normal user may pick the system engine or its own rootless one, not a rootful one.
    assert.equal(await mode.getByRole('radio').count(), 3);
    assert.ok(await mode.getByRole('radio', { name: /Automatic/ }).isChecked());
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor({ timeout: 60_000 });
    const info = (await (
      await fetch(`${session.app.base}/engine/info`, {
        headers: { authorization: `Bearer ${session.app.token}` },
      })
    ).json()) as { SecurityOptions: string[] };
    assert.ok(info.SecurityOptions.includes('name=rootless'), info.SecurityOptions.join(' '));
    await session.shot('rootless-settings');
  });

  test('the run dialog starts a container and its logs show', async () => {
    await page.keyboard.press('Alt+1');
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill('busybox:latest');
    await dialog.getByLabel('Name').fill(NAME);
    await dialog.getByLabel('Command').fill(`sh -c 'echo hello from uid $(id -u); exec sleep 300'`);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await page
      .getByRole('heading', { name: NAME })
      .or(dialog.getByRole('alert'))
      .first()
      .waitFor({ timeout: 60_000 });
    if (await dialog.isVisible())
      assert.fail(`the engine refused the run: ${await dialog.getByRole('alert').first().textContent()}`);
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });
    await tab('Logs');
    await until('the log line', async () =>
      (await page.locator('.log-lines .line').allInnerTexts()).some((t) => /hello from uid 0$/.test(t.trim()))
        ? true
        : undefined,
    );
    await session.shot('rootless-logs');
  });

  test('a terminal gets a shell in it and runs a command', async () => {
    await tab('Terminal');
    await page.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
    const term = page.getByTestId('terminal');
    await term.click();
    // Root of the container is the user's own uid outside: the first uid_map line says so.
    await page.keyboard.type(`awk 'NR==1 { print "map", $1, $2 }' /proc/self/uid_map`);
    await page.keyboard.press('Enter');
    const rows = term.locator('.xterm-rows > div');
    const line = await until("the command's output", async () =>
      (await rows.allInnerTexts()).map((t) => t.trim()).find((t) => /^map \d+ \d+$/.test(t)),
    );
    const [, inside, outside] = line.split(' ').map(Number);
    assert.equal(inside, 0, line);
    assert.notEqual(outside, 0, line);
    await session.shot('rootless-terminal');
  });
});

describe('web mode as a member of the socket group of a system engine', { skip }, () => {
  let system: SvcdInstance;
  let session: Session;
  let page: Page;
  const mode = () => page.getByTestId('engine-mode');
  const current = (name: string) =>
    mode().getByTestId('engine-mode-current').filter({ hasText: name }).waitFor();
  /** Whether the engine the gateway reaches now is a rootless one. */
  const rootlessAnswers = async () => {
    const res = await fetch(`${session.app.base}/engine/info`, {
      headers: { authorization: `Bearer ${session.app.token}` },
    });
    if (res.status !== 200) return undefined;
    return ((await res.json()) as { SecurityOptions: string[] }).SecurityOptions.includes('name=rootless');
  };
  const systemRow = () => page.getByTestId('container-row').filter({ hasText: 'on-the-system-engine' });

  before(async () => {
    // A root svcd with its socket 0660 for the group, in a directory all may cross (as /run/svc).
    system = await startSvcd({ args: ['--group', String(SOCKET_GID)] });
    await chmod(system.dir, 0o711);
    await importBusybox(system);
    const created = await system.request('POST', '/containers/create?name=on-the-system-engine', {
      body: { Image: 'busybox', Cmd: ['true'] },
    });
    assert.equal(created.status, 201, created.text());
    session = await startSession({ rootless: true, groups: [SOCKET_GID], systemSocket: system.socket });
    page = session.page;
  });

  after(async () => {
    await session?.stop();
    await destroySvcd(system);
  });

  test('takes the system engine; Settings move it onto its own rootless engine and back', async () => {
    await page.goto(`${session.app.launchUrl}#/settings`);
    await current('system engine');
    assert.equal(
      await mode().getByTestId('engine-mode-reason').innerText(),
      `the system engine answers on ${system.socket}`,
    );
    assert.equal(await rootlessAnswers(), false);
    await page.getByTestId('service-svcd').getByText('not managed by it').waitFor();
    await page.getByTestId('service-svcd').getByText('journalctl -u svcd').waitFor();
    await session.shot('system-engine-settings');
    await page.keyboard.press('Alt+1');
    await systemRow().waitFor();

    await page.keyboard.press('Alt+8');
    await mode()
      .getByRole('radio', { name: /own rootless engine/ })
      .check();
    await current('own rootless engine');
    assert.equal(
      await mode().getByTestId('engine-mode-reason').innerText(),
      'chosen in Settings: the app runs its own rootless engine',
    );
    await until(
      'the rootless engine answering',
      async () => ((await rootlessAnswers()) ? true : undefined),
      60_000,
    );
    await page.keyboard.press('Alt+1');
    await page.getByTestId('containers-empty').waitFor({ timeout: 30_000 });

    await page.keyboard.press('Alt+8');
    await mode()
      .getByRole('radio', { name: /^Automatic/ })
      .check();
    await current('system engine');
    await until('the system engine answering', async () =>
      (await rootlessAnswers()) === false ? true : undefined,
    );
    await page.keyboard.press('Alt+1');
    await systemRow().waitFor({ timeout: 30_000 });
  });
});
