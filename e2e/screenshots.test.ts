// Screenshots of every screen, in light and dark (the system setting, which the app follows) at
// 1440×900 and 1024×700, with real data from the real svcd and registry: saved under
// test-artifacts/screenshots/ for people to look at. What a machine can tell is asserted too: each
// screen shows its content and the page never scrolls sideways.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import { looks, screenshotsDir, sidewaysOverflow } from './looks';
import { engineCaller, pullBusybox, unusedSubnet, type EngineCall } from './engine-calls';
import { pushTestIndex } from './registry-push';
import { missingPrerequisite, runFromPalette, startSession, type Session } from './web-mode-fixture';

const dir = screenshotsDir;

interface Screen {
  name: string;
  hash: string;
  /** What the screen shows once its data is in. */
  ready: (page: Page) => Locator;
  /** Opens something over the screen (a dialog, the palette) before the shot. */
  then?: (page: Page) => Promise<void>;
}

describe('screenshots of every screen', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let engine: EngineCall;

  /** Opens each screen in each look, checks it fits, and saves it as <name>-<scheme>-<w>x<h>.png. */
  async function shoot(screens: Screen[]): Promise<void> {
    // Every screen is shot before the test fails, so the pictures show what is too wide.
    const tooWide: string[] = [];
    for (const look of looks) {
      const page = await session.newPage({
        viewport: { width: look.width, height: look.height },
        colorScheme: look.scheme,
      });
      try {
        await page.goto(session.app.launchUrl);
        await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
        for (const s of screens) {
          await page.evaluate(`location.hash = ${JSON.stringify(s.hash)}`);
          await s.ready(page).first().waitFor();
          await s.then?.(page);
          assert.equal(
            await page.evaluate('document.documentElement.dataset.theme'),
            look.scheme,
            `${s.name}: the theme follows the system's ${look.scheme} setting`,
          );
          await page.screenshot({
            path: join(dir, `${s.name}-${look.scheme}-${look.width}x${look.height}.png`),
          });
          const overflow = await sidewaysOverflow(page);
          if (overflow > 0) tooWide.push(`${s.name} at ${look.width}px by ${overflow}px`);
          if (s.then) await page.keyboard.press('Escape');
        }
      } finally {
        await page.close();
      }
    }
    assert.deepEqual(tooWide, [], 'screens that scroll sideways');
  }

  before(async () => {
    mkdirSync(dir, { recursive: true });
    session = await startSession();
    engine = engineCaller(session.app);
  });

  after(async () => {
    await session?.stop();
  });

  test('empty states lead somewhere', async () => {
    await shoot([
      {
        name: 'empty-containers',
        hash: '#/containers',
        ready: (p) => p.getByTestId('containers-empty').getByRole('button', { name: 'Run a container…' }),
      },
      {
        name: 'empty-images',
        hash: '#/images',
        ready: (p) => p.getByTestId('images-empty').getByRole('button', { name: 'Pull…' }),
      },
      {
        name: 'empty-volumes',
        hash: '#/volumes',
        ready: (p) => p.getByTestId('volumes-empty').getByRole('button', { name: 'New volume…' }),
      },
    ]);
    // A volume's browser needs an image for its helper container, and there is none yet.
    await engine('POST', '/volumes/create', { Name: 'shots-no-image' });
    await shoot([
      {
        name: 'empty-volume-browser',
        hash: '#/volumes/shots-no-image',
        ready: (p) => p.getByTestId('volume-browser-no-image').getByRole('button', { name: 'Pull…' }),
      },
    ]);
    await engine('DELETE', '/volumes/shots-no-image');
  });

  test('every screen with data', async () => {
    const image = await pullBusybox(session.app);
    await engine('POST', '/volumes/create', { Name: 'shots-data' });
    const run = async (name: string, cmd: string[]) => {
      const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
        Image: image,
        Cmd: cmd,
        Labels: { app: 'shots' },
        HostConfig: { NetworkMode: 'none', Binds: ['shots-data:/data'] },
      })) as { Id: string };
      await engine('POST', `/containers/${Id}/start`);
      return Id;
    };
    const web = await run('shots-web-server-with-a-rather-long-name', [
      'sh',
      '-c',
      'i=0; while [ $i -lt 60 ]; do echo "request $i served in $((i % 7)) ms"; i=$((i+1)); done; echo warn >&2; sleep 600',
    ]);
    const job = await run('shots-job', ['sh', '-c', 'echo done > /data/out']);
    await engine('POST', `/containers/${job}/wait`);
    const repo = 'e2e/busybox';
    await pushTestIndex(session.app.registryUrl, 'e2e/multi-platform', 'latest');
    const heading = (name: string) => (p: Page) => p.getByRole('heading', { name });
    await shoot([
      { name: 'containers', hash: '#/containers', ready: (p) => p.getByTestId('container-row') },
      {
        name: 'container-summary',
        hash: `#/containers/${web}/summary`,
        ready: (p) =>
          p.getByRole('tabpanel').getByText('sleep 600').or(p.getByRole('tabpanel').getByText('Image')),
      },
      {
        name: 'container-logs',
        hash: `#/containers/${web}/logs`,
        ready: (p) => p.getByText('request 59 served'),
      },
      { name: 'container-terminal', hash: `#/containers/${web}/terminal`, ready: (p) => p.locator('.xterm') },
      {
        name: 'container-stats',
        hash: `#/containers/${web}/stats`,
        ready: (p) => p.locator('.time-chart .series[points*=" "]'),
      },
      {
        name: 'container-files',
        hash: `#/containers/${web}/files`,
        ready: (p) => p.getByRole('button', { name: 'data/' }),
      },
      { name: 'images', hash: '#/images', ready: (p) => p.getByRole('cell', { name: new RegExp(repo) }) },
      {
        name: 'image-summary',
        hash: `#/images/${encodeURIComponent(image)}/summary`,
        ready: (p) => p.getByRole('tabpanel').getByText('Platform'),
      },
      {
        name: 'image-layers',
        hash: `#/images/${encodeURIComponent(image)}/layers`,
        ready: (p) => p.getByRole('tree'),
      },
      {
        name: 'registry',
        hash: `#/registry/${encodeURIComponent(repo)}/1.0`,
        ready: (p) => p.getByText(/sha256:/),
      },
      {
        name: 'registry-index',
        hash: '#/registry/e2e%2Fmulti-platform/latest',
        ready: (p) => p.getByRole('table', { name: 'Platforms of the index' }),
      },
      {
        name: 'registry-add',
        hash: '#/registry',
        ready: (p) => p.getByTestId('repositories').getByRole('link'),
        then: async (p) => {
          await p.getByRole('button', { name: 'Add registry…' }).click();
          const form = p.getByRole('form', { name: 'Add a registry' });
          await form.getByLabel(/Bearer token/).check();
          await form.getByLabel('Username', { exact: true }).waitFor();
        },
      },
      {
        name: 'registry-copy',
        hash: `#/registry/${encodeURIComponent(repo)}/1.0`,
        ready: (p) => p.getByTestId('image-config'),
        then: async (p) => {
          await p.getByRole('button', { name: 'Copy to…' }).click();
          await p.getByRole('dialog', { name: `Copy ${repo}:1.0` }).waitFor();
        },
      },
      {
        name: 'registry-delete-tag',
        hash: `#/registry/${encodeURIComponent(repo)}/1.0`,
        ready: (p) => p.getByTestId('image-config'),
        then: async (p) => {
          await p.getByRole('button', { name: 'Delete tag' }).click();
          await p.getByRole('dialog', { name: `Delete tag ${repo}:1.0?` }).waitFor();
        },
      },
      { name: 'volumes', hash: '#/volumes', ready: (p) => p.getByRole('cell', { name: 'shots-data' }) },
      {
        name: 'volume-browser',
        hash: '#/volumes/shots-data',
        ready: (p) => p.getByRole('cell', { name: 'out', exact: true }),
      },
      {
        name: 'events',
        hash: '#/events',
        ready: heading('Events'),
        // The timeline starts when the page opens: something happens while it is open.
        then: async (p) => {
          await engine('POST', '/volumes/create', { Name: 'shots-event' });
          await engine('DELETE', '/volumes/shots-event');
          await p.getByText('shots-event').first().waitFor();
        },
      },
      { name: 'disk-usage', hash: '#/disk', ready: (p) => p.locator('tr[data-kind=images]') },
      {
        name: 'settings',
        hash: '#/settings',
        ready: (p) => p.getByTestId('usage').getByText('svcd', { exact: true }),
      },
      {
        name: 'palette',
        hash: '#/containers',
        ready: (p) => p.getByTestId('container-row'),
        then: async (p) => {
          await p.keyboard.press('Control+k');
          await p.getByRole('dialog', { name: 'Command palette' }).waitFor();
        },
      },
      {
        name: 'dialog-remove',
        hash: '#/containers',
        ready: (p) => p.getByTestId('container-row'),
        then: async (p) => {
          await p
            .getByTestId('container-row')
            .filter({ hasText: 'shots-job' })
            .getByRole('button', { name: 'Remove' })
            .click();
          await p.getByRole('dialog', { name: 'Remove shots-job?' }).waitFor();
        },
      },
    ]);
  });

  test('networks with fifty containers, their dialogs, the volume and run dialogs', async () => {
    const image = await pullBusybox(session.app);
    const prefix = unusedSubnet();
    await engine('POST', '/networks/create', {
      Name: 'shots-net',
      IPAM: { Config: [{ Subnet: `${prefix}.0/24`, Gateway: `${prefix}.1` }] },
      Labels: { app: 'shots' },
    });
    // Fifty containers on it, a few publishing a port: the topology must stay readable.
    const names = Array.from({ length: 50 }, (_, i) => `shots-app-${String(i + 1).padStart(2, '0')}`);
    // The first alone: svcd's DNS server for the network binds at the first start (two at once race).
    const batches = [
      names.slice(0, 1),
      ...Array.from({ length: 10 }, (_, k) => names.slice(1 + 5 * k, 6 + 5 * k)),
    ];
    for (const batch of batches)
      await Promise.all(
        batch.map(async (name) => {
          const i = names.indexOf(name);
          const publish = i < 3;
          const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
            Image: image,
            Cmd: ['sleep', '600'],
            ExposedPorts: publish ? { '80/tcp': {} } : undefined,
            HostConfig: {
              NetworkMode: 'shots-net',
              PortBindings: publish ? { '80/tcp': [{ HostIp: '127.0.0.1', HostPort: '' }] } : undefined,
            },
            NetworkingConfig: { EndpointsConfig: { 'shots-net': { Aliases: [`svc${i}`] } } },
          })) as { Id: string };
          await engine('POST', `/containers/${Id}/start`);
        }),
      );
    const lane = (p: Page) => p.getByRole('region', { name: 'Network shots-net' });
    try {
      await shoot([
        { name: 'networks', hash: '#/networks', ready: (p) => p.locator('tr[data-network="shots-net"]') },
        {
          name: 'networks-topology',
          hash: '#/networks',
          ready: (p) => p.locator('tr[data-network="shots-net"]'),
          then: async (p) => {
            await p.getByRole('radio', { name: 'Topology' }).click();
            await lane(p).locator('[data-container="shots-app-50"]').waitFor();
          },
        },
        {
          name: 'network-detail',
          hash: '#/networks/shots-net',
          ready: (p) => p.locator('tr[data-container="shots-app-01"]').getByText('svc0'),
        },
        {
          name: 'network-create',
          hash: '#/networks',
          ready: (p) => p.locator('tr[data-network="shots-net"]'),
          then: async (p) => {
            await p.getByRole('button', { name: 'New network…' }).click();
            await p.getByRole('dialog', { name: 'Create a network' }).getByLabel('Name').fill('web');
          },
        },
        {
          name: 'volume-create',
          hash: '#/volumes',
          ready: (p) => p.getByRole('button', { name: 'New volume…' }),
          then: async (p) => {
            await p.getByRole('button', { name: 'New volume…' }).first().click();
            await p
              .getByRole('dialog', { name: 'Create a volume' })
              .getByRole('radio', { name: /tmpfs/ })
              .check();
          },
        },
        {
          name: 'run-dialog',
          hash: '#/containers',
          ready: (p) => p.getByTestId('container-row'),
          then: async (p) => {
            await p.getByRole('button', { name: 'Run container…' }).click();
            const run = p.getByRole('dialog', { name: 'Run a container' });
            await run.getByRole('checkbox', { name: 'shots-net', exact: true }).check();
            await run.getByLabel('Aliases on shots-net').fill('web, api');
          },
        },
      ]);
    } finally {
      // The palette's test counts the containers: these go.
      for (const name of names) await engine('DELETE', `/containers/${name}?force=1`).catch(() => undefined);
      await engine('DELETE', '/networks/shots-net');
    }
  });

  test('the command palette reaches the actions each screen owns, confirmed as on the screen', async () => {
    const page = session.page;
    await page.goto(session.app.launchUrl + '#/containers');
    await page.getByTestId('container-row').first().waitFor();
    const palette = (text: string) => runFromPalette(page, text);
    await palette('Remove container shots-job');
    await page
      .getByRole('dialog', { name: 'Remove shots-job?' })
      .getByRole('button', { name: 'Cancel' })
      .click();
    await palette('Clean up everything');
    const cleanup = page.getByRole('dialog', { name: 'Clean up everything?' });
    assert.match(await cleanup.getByTestId('will-remove').innerText(), /1 stopped container: shots-job/);
    await page.keyboard.press('Escape');
    await palette('Prune unused volumes');
    // Both containers use the one volume: nothing to prune, and the palette says so.
    await page.getByTestId('toasts').getByText('No unused volumes to prune').waitFor();
    await palette('Create volume');
    const create = page.getByRole('dialog', { name: 'Create a volume' });
    await create.getByLabel('Name').and(page.locator(':focus')).waitFor();
    await page.keyboard.press('Escape');
    // Cancelled everywhere: nothing was removed.
    const left = (await engine('GET', '/containers/json?all=1')) as unknown[];
    assert.equal(left.length, 2);
  });
});
