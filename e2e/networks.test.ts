// The Networks screen and the run dialog's networks in web mode against the real svcd: a network
// made in its dialog (subnet and gateway given), two containers run on it from the run dialog,
// one reaching the other by name and by alias in its terminal; the server's published port
// opened from its link answers; the network's page lists both with addresses and aliases,
// disconnects one and connects it again with an alias and a fixed address; every field of the
// create dialog (IPv6's subnet among them) reaches the engine; an unused network is pruned; the
// network is refused removal while in use, then removed.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, unusedSubnet, type EngineCall } from './engine-calls';
import { runInTerminal } from './screen-steps';
import { freePort, missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('networks in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let port: number;
  const net = 'e2e-net';
  const prefix = unusedSubnet();

  async function runFromDialog(name: string, command: string, alias: string, ports = ''): Promise<void> {
    await page.evaluate(`location.hash = '#/containers'`);
    await page.getByRole('button', { name: 'Run container…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Run a container' });
    await dialog.getByLabel('Image').fill(image);
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('Command').fill(command);
    if (ports) await dialog.getByLabel('Ports').fill(ports);
    await dialog.getByRole('checkbox', { name: net, exact: true }).check();
    await dialog.getByLabel(`Aliases on ${net}`).fill(alias);
    await dialog.getByRole('button', { name: 'Run', exact: true }).click();
    await dialog.waitFor({ state: 'hidden' }).catch(async () => {
      assert.fail(`the run was refused: ${await dialog.getByRole('alert').allInnerTexts()}`);
    });
    await page.getByRole('heading', { name }).waitFor();
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });
  }

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    image = await pullBusybox(app);
    port = await freePort();
    await page.goto(app.launchUrl + '#/networks');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('creates a network in its dialog; a wrong field is named before anything is sent', async () => {
    await page.getByRole('button', { name: 'New network…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a network' });
    await dialog.getByLabel('Name').fill(net);
    await dialog.getByLabel('Subnet').fill('10.213.300.0/24');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'subnet "10.213.300.0/24" is not an IPv4 CIDR' })
      .waitFor();
    await dialog.getByLabel('Subnet').fill(`${prefix}.0/24`);
    await dialog.getByLabel('Gateway').fill(`${prefix}.1`);
    await dialog.getByLabel('Labels').fill('team=e2e');
    await session.shot('network-create');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator(`tr[data-network="${net}"]`);
    await row.getByText(`${prefix}.0/24`).waitFor();
    const inspect = (await engine('GET', `/networks/${net}`)) as {
      Labels: Record<string, string>;
      IPAM: { Config: { Gateway: string }[] };
    };
    assert.deepEqual(inspect.Labels, { team: 'e2e' });
    assert.equal(inspect.IPAM.Config[0].Gateway, `${prefix}.1`);
  });

  test("IPv6 without its subnet is named in the form; a subnet another network has, refused by the engine at the dialog's width", async () => {
    await page.getByRole('button', { name: 'New network…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a network' });
    await dialog.getByLabel('Name').fill('e2e-v6');
    await dialog.getByLabel('IPv6', { exact: true }).check();
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog
      .getByRole('alert')
      .filter({ hasText: 'IPv6 needs an IPv6 subnet, such as fd00:1::/64' })
      .waitFor();
    await dialog.getByLabel('IPv6', { exact: true }).uncheck();
    await dialog.getByLabel('Subnet', { exact: true }).fill(`${prefix}.0/24`);
    const width = (await dialog.boundingBox())!.width;
    await dialog.getByRole('button', { name: 'Create' }).click();
    const refused = dialog.getByRole('alert').filter({ hasText: 'The engine refused' });
    await refused.waitFor();
    assert.match(await refused.innerText(), /overlaps/);
    assert.equal(
      Math.round((await dialog.boundingBox())!.width),
      Math.round(width),
      'the dialog keeps its width',
    );
    await dialog.getByRole('button', { name: 'Cancel' }).click();
  });

  test('every field of the dialog reaches the engine: IP range, internal, attachable, IPv6, driver options', async () => {
    const other = unusedSubnet();
    await page.getByRole('button', { name: 'New network…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create a network' });
    await dialog.getByLabel('Name').fill('e2e-every');
    await dialog.getByLabel('Subnet', { exact: true }).fill(`${other}.0/24`);
    await dialog.getByLabel('IP range').fill(`${other}.128/25`);
    await dialog.getByLabel('Internal').check();
    await dialog.getByLabel('Attachable').check();
    await dialog.getByLabel('IPv6', { exact: true }).check();
    await dialog.getByLabel('IPv6 subnet').fill('fd00:e2e::/64');
    await dialog.getByLabel('IPv6 gateway').fill('fd00:e2e::fe');
    await dialog.getByLabel('Driver options').fill('com.docker.network.driver.mtu=1400');
    await session.shot('network-create-every-field');
    await dialog.getByRole('button', { name: 'Create' }).click();
    await dialog.waitFor({ state: 'hidden' });
    const row = page.locator('tr[data-network="e2e-every"]');
    await row.getByText('internal, attachable, IPv6').waitFor();
    assert.match(await row.innerText(), new RegExp(`${other}\\.0/24, fd00:e2e::/64`));
    const inspect = (await engine('GET', '/networks/e2e-every')) as {
      Internal: boolean;
      Attachable: boolean;
      EnableIPv6: boolean;
      Options: Record<string, string>;
      IPAM: { Config: { Subnet: string; IPRange?: string; Gateway?: string }[] };
    };
    assert.deepEqual(
      [
        inspect.Internal,
        inspect.Attachable,
        inspect.EnableIPv6,
        inspect.Options['com.docker.network.driver.mtu'],
      ],
      [true, true, true, '1400'],
    );
    const [v4, v6] = inspect.IPAM.Config;
    assert.deepEqual([v4.Subnet, v4.IPRange], [`${other}.0/24`, `${other}.128/25`]);
    assert.deepEqual([v6.Subnet, v6.Gateway], ['fd00:e2e::/64', 'fd00:e2e::fe']);
  });

  test('two containers run on it from the run dialog; one reaches the other by name and alias', async () => {
    await runFromDialog(
      'web',
      `sh -c "mkdir -p /www && echo hello-from-web > /www/index.html && httpd -f -p 80 -h /www"`,
      'api',
      `${port}:80`,
    );
    await runFromDialog('client', 'sh', 'probe');
    await runInTerminal(page, 'wget -qO- http://web/', 'hello-from-web');
    await runInTerminal(page, 'wget -qO- http://api/ | tr a-z A-Z', 'HELLO-FROM-WEB');
  });

  test("the server's published port opens from its link on the container's page and answers", async () => {
    await page.evaluate(`location.hash = '#/containers'`);
    await page.getByRole('link', { name: 'web', exact: true }).click();
    const link = page.getByRole('link', { name: `${port}→80/tcp` });
    const [popup] = await Promise.all([page.waitForEvent('popup'), link.click()]);
    await popup.waitForLoadState();
    assert.match(await popup.content(), /hello-from-web/);
    await popup.close();
    // Its networks are links too, each with the address and aliases.
    await page.getByRole('link', { name: net, exact: true }).waitFor();
    await page.getByText('(api)').waitFor();
  });

  test("the network's page lists both; disconnects one and connects it with an alias and an address", async () => {
    await page.evaluate(`location.hash = '#/networks/${net}'`);
    const rowOf = (name: string) => page.locator(`tr[data-container="${name}"]`);
    await rowOf('web').getByText('api').waitFor();
    await rowOf('client').getByText('probe').waitFor();
    assert.match(await rowOf('web').innerText(), new RegExp(`${prefix.replace(/\./g, '\\.')}\\.\\d+/24`));
    await session.shot('network-detail');
    await rowOf('client')
      .getByRole('button', { name: `Disconnect client from ${net}` })
      .click();
    await rowOf('client').waitFor({ state: 'detached' });
    const form = page.getByRole('form', { name: `Connect a container to ${net}` });
    await form.getByLabel('Container').selectOption({ label: 'client' });
    await form.getByLabel('Aliases').fill('again');
    await form.getByLabel('IPv4 address').fill(`${prefix}.50`);
    await form.getByRole('button', { name: 'Connect' }).click();
    await rowOf('client').getByText(`${prefix}.50/24`).waitFor();
    await rowOf('client').getByText('again').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Remove network…' }).isDisabled(), true);
  });

  test('the topology shows the network with its containers and the published port', async () => {
    await page.evaluate(`location.hash = '#/networks'`);
    await page.getByRole('radio', { name: 'Topology' }).click();
    const lane = page.getByRole('region', { name: `Network ${net}` });
    await lane
      .locator('[data-container="web"]')
      .getByRole('link', { name: `${port}→80/tcp` })
      .waitFor();
    await lane.locator('[data-container="client"]').getByText(`${prefix}.50`).waitFor();
    await page.getByRole('radio', { name: 'List' }).click();
  });

  test('prune removes the network no container is on, named before it goes, and keeps the one in use', async () => {
    await page.evaluate(`location.hash = '#/networks'`);
    await page.getByRole('button', { name: 'Prune unused' }).click();
    const dialog = page.getByRole('dialog', { name: 'Prune unused networks?' });
    assert.match(await dialog.innerText(), /1 network no container is on will be removed: e2e-every\./);
    await dialog.getByRole('button', { name: 'Prune' }).click();
    await page.getByTestId('toasts').getByText('Pruned 1 network').waitFor();
    await page.locator('tr[data-network="e2e-every"]').waitFor({ state: 'detached' });
    const names = ((await engine('GET', '/networks')) as { Name: string }[]).map((n) => n.Name);
    assert.ok(names.includes(net) && !names.includes('e2e-every'), names.join(', '));
  });

  test('removed once no container is on it', async () => {
    await engine('DELETE', '/containers/web?force=1');
    await engine('DELETE', '/containers/client?force=1');
    const row = page.locator(`tr[data-network="${net}"]`);
    // The removals' events refresh the list, and the button comes on.
    const remove = row.locator(`button[aria-label="Remove network ${net}"]:not([disabled])`);
    await remove.click();
    await page
      .getByRole('dialog', { name: `Remove network ${net}?` })
      .getByRole('button', { name: 'Remove' })
      .click();
    await row.waitFor({ state: 'detached' });
    const names = ((await engine('GET', '/networks')) as { Name: string }[]).map((n) => n.Name);
    assert.ok(!names.includes(net), names.join(', '));
  });
});
