// What the new-user walk-through of issue #30 hit, in web mode against the real svcd: an imported
// rootfs without a shell (the dialog closes and names the image; Run says what to do, in a dialog
// that keeps its width), a published port whose host port is taken (said on the container), the
// events of a network's connect and disconnect (the container named) and of the app's own image
// save (marked, hidden unless asked), and the containers table's columns at 1440 and 1024 px.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:net';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, unusedSubnet, type EngineCall } from './engine-calls';
import { makeImage } from './image-archives';
import { importRootfs, openBusyboxLayer } from './screen-steps';
import { shootLooks } from './looks';
import { freePort, missingPrerequisite, startSession, type Session } from './web-mode-fixture';

describe('what the new-user walk-through hit', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let busy: Server | undefined;

  const create = async (name: string, body: Record<string, unknown>) =>
    ((await engine('POST', `/containers/create?name=${name}`, { Image: image, ...body })) as { Id: string })
      .Id;

  before(async () => {
    session = await startSession();
    ({ page } = session);
    engine = engineCaller(session.app);
    image = await pullBusybox(session.app);
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto(session.app.launchUrl + '#/images');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    busy?.close();
    await session?.stop();
  });

  test('a rootfs without a shell: imported by name, then Run says what to do in a dialog of the same width', async () => {
    await page.getByRole('button', { name: 'Import…' }).click();
    const imp = page.getByRole('dialog', { name: 'Import a root filesystem' });
    const toast = await importRootfs(imp, {
      repo: 'e2e/noshell',
      tag: '1.0',
      command: '',
      layer: makeImage(false).layer,
    });
    assert.match(
      toast,
      /^Imported e2e\/noshell:1\.0 \([0-9a-f]{12}\): it has no command, give one when you run it$/,
    );

    await page.evaluate(`location.hash = '#/containers'`);
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill('e2e/noshell:1.0');
    await dialog.getByLabel('Name').fill('noshell');
    await dialog.getByLabel('Command').fill('sh -c true');
    const width = (await dialog.boundingBox())!.width;
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    const refused = dialog.getByRole('alert').filter({ hasText: 'The engine refused' });
    await refused.waitFor({ timeout: 60_000 });
    assert.match(await refused.innerText(), /the image has no sh: give a command that exists in it/);
    await session.shot('walkthrough-no-shell');
    assert.equal(Math.round((await dialog.boundingBox())!.width), Math.round(width));
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('a host port something else holds: the container says so, and what to do', async () => {
    const port = await freePort();
    busy = createServer();
    await new Promise<void>((r) => busy!.listen(port, '127.0.0.1', r));
    const id = await create('port-taken', {
      Cmd: ['sleep', '300'],
      ExposedPorts: { '80/tcp': {} },
      HostConfig: { PortBindings: { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: String(port) }] } },
    });
    const start = await fetch(`${session.app.base}/engine/containers/${id}/start`, {
      method: 'POST',
      headers: { authorization: `Bearer ${session.app.token}` },
    });
    assert.match(await start.text(), /port is already allocated/);
    await page.evaluate(`location.hash = '#/containers/${id}/summary'`);
    const banner = page.getByTestId('start-failed');
    await banner.waitFor();
    const text = await banner.innerText();
    assert.match(text, new RegExp(`Port ${port} could not be published, so it did not start`));
    assert.match(
      text,
      new RegExp(
        `host port ${port} is already in use on 127\\.0\\.0\\.1: stop what listens there, or publish on another host port`,
      ),
    );
    assert.deepEqual(await shootLooks(page, 'container-port-taken'), [], 'looks that scroll sideways');
    await engine('DELETE', `/containers/${id}?force=1`);
  });

  test("events: a connect and disconnect name the container; the layer view's own save is marked and hidden", async () => {
    const net = `walk-${Date.now().toString(36)}`;
    const { Id: netId } = (await engine('POST', '/networks/create', {
      Name: net,
      IPAM: { Config: [{ Subnet: `${unusedSubnet()}.0/24` }] },
    })) as { Id: string };
    // Started on the network (a connect), then taken off it (a disconnect).
    const peer = await create('walk-peer', { Cmd: ['sleep', '300'], HostConfig: { NetworkMode: net } });
    await engine('POST', `/containers/${peer}/start`);
    await engine('POST', `/networks/${netId}/disconnect`, { Container: peer });
    await page.evaluate(`location.hash = '#/images'`);
    await openBusyboxLayer(page, image);
    await page.evaluate(`location.hash = '#/events'`);
    const rows = page.getByRole('list', { name: 'Events' }).locator('.event-row');
    await rows
      .filter({ hasText: `${net} ← walk-peer` })
      .filter({ hasText: 'connect' })
      .waitFor();
    await rows
      .filter({ hasText: `${net} → walk-peer` })
      .filter({ hasText: 'disconnect' })
      .waitFor();
    const own = page.getByRole('checkbox', { name: /the app's own \(1\)/ });
    await own.waitFor();
    const saves = rows
      .filter({ has: page.locator('.badge.type-image') })
      .filter({ has: page.locator('strong', { hasText: /^save$/ }) });
    assert.equal(await saves.count(), 0);
    await own.check();
    await saves.filter({ hasText: 'by this app (layer view)' }).waitFor();
    assert.deepEqual(await shootLooks(page, 'events-own-save'), [], 'looks that scroll sideways');
    await engine('DELETE', `/containers/${peer}?force=1`);
    await engine('DELETE', `/networks/${netId}`);
  });

  for (const [width, height] of [
    [1440, 900],
    [1024, 700],
  ])
    test(`the containers table at ${width} px: the Ports column shows, its link inside it`, async () => {
      const port = await freePort();
      const id = await create(`ports-${width}`, {
        Cmd: ['sleep', '300'],
        ExposedPorts: { '8080/tcp': {} },
        HostConfig: { PortBindings: { '8080/tcp': [{ HostPort: String(port) }] } },
      });
      await engine('POST', `/containers/${id}/start`);
      await page.setViewportSize({ width, height });
      await page.evaluate(`location.hash = '#/containers'`);
      const head = page.locator('.table-head.containers-grid');
      const portsHead = head.getByText('Ports', { exact: true });
      await portsHead.waitFor();
      assert.ok(await portsHead.isVisible(), 'the Ports heading shows');
      const row = page.locator('[data-testid=container-row]').filter({ hasText: `ports-${width}` });
      const link = row.getByRole('link', { name: `${port}→8080/tcp` });
      await link.waitFor();
      const cells = row.locator(':scope > *');
      const boxes = [];
      for (let i = 0; i < (await cells.count()); i++) {
        if (await cells.nth(i).isVisible()) boxes.push(await cells.nth(i).boundingBox());
      }
      const l = (await link.boundingBox())!;
      const portsCell = (await row.locator('.ports').boundingBox())!;
      assert.ok(
        l.x >= portsCell.x - 0.5 && l.x + l.width <= portsCell.x + portsCell.width + 0.5,
        'the link fits its cell',
      );
      // No two visible cells overlap.
      for (let i = 1; i < boxes.length; i++)
        assert.ok(
          boxes[i - 1]!.x + boxes[i - 1]!.width <= boxes[i]!.x + 0.5,
          `cells ${i - 1} and ${i} overlap`,
        );
      await session.shot(`walkthrough-containers-${width}`);
      await engine('DELETE', `/containers/${id}?force=1`);
    });
});
