// The run dialog's fields beyond networks, in web mode against the real svcd: a host port
// something else holds is named before the run is sent (and the run waits for another one), an
// env file is read into the environment, a named volume, a bind of a host folder and a tmpfs are
// mounted, a restart policy is kept; the container's page shows its mounts (the volume a link to
// it) and its published port as a link.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { freePort, missingPrerequisite, startSession, type Session } from './web-mode-fixture';

describe('the run dialog in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let busy: Server | undefined;
  const hostDir = mkdtempSync(join(tmpdir(), 'e2e-run-bind-'));

  before(async () => {
    writeFileSync(join(hostDir, 'from-host.txt'), 'made on the host\n');
    session = await startSession();
    ({ page } = session);
    engine = engineCaller(session.app);
    image = await pullBusybox(session.app);
    await page.goto(session.app.launchUrl + '#/containers');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    busy?.close();
    await session?.stop();
    rmSync(hostDir, { recursive: true, force: true });
  });

  test('a taken host port is named before anything is sent; env file, volume, bind, tmpfs and restart policy reach the engine', async () => {
    const [taken, port] = [await freePort(), await freePort()];
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(taken, '127.0.0.1', r));

    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByLabel('Name').fill('run-all');
    await dialog
      .getByLabel('Command')
      .fill(
        `sh -c "echo A=$A B=$B; cat /host/from-host.txt; grep /run/cache /proc/mounts; echo kept > /data/k; exec httpd -f -p 80 -h /host"`,
      );
    await dialog.getByLabel('Ports').fill(`${taken}:80`);
    const problems = dialog.getByTestId('port-problems');
    await problems.filter({ hasText: `${taken}` }).waitFor();
    assert.match(await problems.innerText(), /choose another host port/);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: `${taken}` })
      .waitFor();
    assert.deepEqual(await engine('GET', '/containers/json?all=1'), [], 'nothing was sent to the engine');
    await dialog.getByLabel('Ports').fill(`${port}:80`);
    await problems.waitFor({ state: 'detached' });

    await dialog.getByLabel('Environment').fill('A=1');
    await dialog.getByLabel('Env file').setInputFiles({
      name: 'app.env',
      mimeType: 'text/plain',
      buffer: Buffer.from('# a comment\nB=from-file\n\n'),
    });
    await dialog.getByLabel('Environment').filter({ hasText: 'B=from-file' }).waitFor();
    assert.equal(await dialog.getByLabel('Environment').inputValue(), 'A=1\nB=from-file');
    await dialog.getByLabel('Volumes').fill(`e2e-run-data:/data\n${hostDir}:/host:ro`);
    await dialog.getByLabel('Tmpfs').fill('/run/cache:size=8m');
    await dialog.getByLabel('Restart policy').selectOption('unless-stopped');
    await session.shot('run-dialog-every-field');
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' }).catch(async () => {
      assert.fail(`the run was refused: ${await dialog.getByRole('alert').allInnerTexts()}`);
    });
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });

    const c = (await engine('GET', '/containers/run-all/json')) as {
      HostConfig: { RestartPolicy: { Name: string }; Tmpfs: Record<string, string> };
      Mounts: { Type: string; Name?: string; Source: string; Destination: string; RW: boolean }[];
    };
    assert.equal(c.HostConfig.RestartPolicy.Name, 'unless-stopped');
    assert.deepEqual(c.HostConfig.Tmpfs, { '/run/cache': 'size=8m' });
    const mounts = c.Mounts.filter((m) => m.Type !== 'tmpfs')
      .map((m) => [m.Type, m.Name ?? m.Source, m.Destination, m.RW])
      .sort();
    assert.deepEqual(mounts, [
      ['bind', hostDir, '/host', false],
      ['volume', 'e2e-run-data', '/data', true],
    ]);
    // What the container itself saw: the environment, the host's file, the tmpfs.
    const logs = await fetch(`${session.app.base}/engine/containers/run-all/logs?stdout=1`, {
      headers: { authorization: `Bearer ${session.app.token}` },
    });
    const text = Buffer.from(await logs.arrayBuffer()).toString('latin1');
    assert.match(text, /A=1 B=from-file/);
    assert.match(text, /made on the host/);
    assert.match(text, /tmpfs \/run\/cache tmpfs .*size=8192k/);

    // The container's page: the mounts (the volume a link to its page), the port a link that answers.
    const summary = page.locator('main');
    await summary.getByRole('link', { name: 'volume e2e-run-data' }).waitFor();
    assert.match(await summary.innerText(), new RegExp(`bind ${hostDir} → /host \\(ro\\)`));
    const link = summary.getByRole('link', { name: `${port}→80/tcp` });
    const href = (await link.getAttribute('href'))!;
    assert.equal(new URL(href).port, String(port));
    const served = await fetch(`http://127.0.0.1:${port}/from-host.txt`);
    assert.equal(await served.text(), 'made on the host\n');
    await summary.getByRole('link', { name: 'volume e2e-run-data' }).click();
    await page.waitForURL(/#\/volumes\/e2e-run-data/);
    await engine('DELETE', '/containers/run-all?force=1');
  });
});
