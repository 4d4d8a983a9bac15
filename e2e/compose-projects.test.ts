// Compose projects in the containers list, web mode against the real svcd: a project made by
// docker-compose (Debian's 1.29) is one row with its containers under it by service, folded and
// unfolded, its logs merged with a service column, stopped, started and restarted as one and
// removed as one with its network and volume.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { pollUntil } from '../daemon/testing/poll';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { shootLooks } from './looks';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

const run = promisify(execFile);
const compose = '/usr/bin/docker-compose';

describe(
  'compose projects in the containers list',
  {
    skip: missingPrerequisite() ?? (existsSync(compose) ? undefined : 'docker-compose is not installed'),
  },
  () => {
    let session: Session;
    let app: WebApp;
    let page: Page;
    let engine: EngineCall;
    let dir: string;
    let image: string;
    const project = 'e2eshop';
    const projectRow = () => page.locator(`[data-testid=project-row][data-project=${project}]`);
    const rows = () => page.getByTestId('container-row');

    before(async () => {
      session = await startSession();
      ({ app, page } = session);
      engine = engineCaller(app);
      image = await pullBusybox(app);
      dir = mkdtempSync(join(tmpdir(), 'svc-compose-e2e-'));
      writeFileSync(
        join(dir, 'docker-compose.yml'),
        [
          'version: "2.4"',
          'services:',
          '  web:',
          `    image: ${image}`,
          `    command: sh -c 'echo web says hello; exec sleep 600'`,
          '    ports: ["127.0.0.1::80"]',
          '    stop_grace_period: 1s',
          '  worker:',
          `    image: ${image}`,
          `    command: sh -c 'echo worker says hi; exec sleep 600'`,
          '    volumes: ["data:/data"]',
          '    stop_grace_period: 1s',
          'volumes:',
          '  data: {}',
          '',
        ].join('\n'),
      );
      // A container of no project beside it stays where it is.
      const { Id } = (await engine('POST', '/containers/create?name=loner', {
        Image: image,
        Cmd: ['sleep', '600'],
      })) as {
        Id: string;
      };
      await engine('POST', `/containers/${Id}/start`);
      await run(compose, ['-p', project, 'up', '-d'], {
        cwd: dir,
        env: { ...process.env, DOCKER_HOST: app.dockerHost },
      });
      await page.goto(app.launchUrl);
      await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
    });

    after(async () => {
      await session?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    test('groups the project in one row, its containers under it by service', async () => {
      await projectRow().waitFor();
      await projectRow().getByTestId('project-state').filter({ hasText: '2 running' }).waitFor();
      assert.match(await projectRow().innerText(), /e2eshop[\s\S]*compose · 2 containers/);
      // The published port of web is on the project's row, as a link.
      const port = (await projectRow().locator('.ports a').innerText()).trim();
      assert.match(port, /^\d+→80\/tcp$/);
      // In the project, each container is named by its service; its full name is the tooltip.
      assert.deepEqual(await rows().locator('.name').allInnerTexts(), ['web', 'worker', 'loner']);
      assert.equal(await rows().locator('.name').first().getAttribute('title'), 'e2eshop_web_1');
      await session.shot('compose-project');
      assert.deepEqual(await shootLooks(page, 'compose-project'), [], 'the list fits each window');
      await projectRow()
        .getByRole('button', { name: `Hide the containers of ${project}` })
        .click();
      await rows().filter({ hasText: 'worker' }).waitFor({ state: 'detached' });
      assert.deepEqual(await rows().locator('.name').allInnerTexts(), ['loner']);
      await projectRow()
        .getByRole('button', { name: `Show the containers of ${project}` })
        .click();
      await rows().filter({ hasText: 'worker' }).waitFor();
    });

    test("merges the project's logs with a service column", async () => {
      await projectRow()
        .getByRole('button', { name: `Logs of project ${project}` })
        .click();
      const line = (text: string) => page.getByTestId('project-log-line').filter({ hasText: text });
      await line('web says hello').waitFor();
      await line('worker says hi').waitFor();
      assert.equal(await line('web says hello').locator('.log-service').innerText(), 'web');
      assert.equal(await line('worker says hi').locator('.log-service').innerText(), 'worker');
      await session.shot('compose-logs');
      assert.deepEqual(await shootLooks(page, 'compose-logs'), [], 'the merged logs fit each window');
      await page.getByRole('link', { name: 'Containers' }).first().click();
    });

    test('stops the whole project with one click', async () => {
      await projectRow()
        .getByRole('button', { name: `Stop project ${project}` })
        .click();
      await projectRow().getByTestId('project-state').filter({ hasText: '2 exited' }).waitFor();
      const loner = (await engine('GET', '/containers/loner/json')) as { State: { Running: boolean } };
      assert.equal(loner.State.Running, true, 'a container of no project is left alone');
    });

    test('starts the stopped project again, then restarts it, one click each', async () => {
      const startedAt = async () =>
        ((await engine('GET', `/containers/${project}_web_1/json`)) as { State: { StartedAt: string } }).State
          .StartedAt;
      await projectRow()
        .getByRole('button', { name: `Start project ${project}`, exact: true })
        .click();
      await projectRow().getByTestId('project-state').filter({ hasText: '2 running' }).waitFor();
      const started = await startedAt();
      await projectRow()
        .getByRole('button', { name: `Restart project ${project}` })
        .click();
      await pollUntil('the restart', async () => ((await startedAt()) !== started ? true : undefined), {
        timeoutMs: 60_000,
      });
      await projectRow().getByTestId('project-state').filter({ hasText: '2 running' }).waitFor();
    });

    test('removes the project with its network and, when asked, its volume', async () => {
      await projectRow()
        .getByRole('button', { name: `Remove project ${project}` })
        .click();
      const dialog = page.getByRole('dialog', { name: `Remove project ${project}?` });
      await dialog.getByLabel('Also remove its volumes (their data is lost)').check();
      await dialog.getByRole('button', { name: 'Remove project' }).click();
      await projectRow().waitFor({ state: 'detached' });
      // Done when the app says what went.
      await page.getByText('Removed e2eshop: 2 containers, 1 network, 1 volume').waitFor();
      assert.deepEqual(await rows().locator('.name').allInnerTexts(), ['loner']);
      const networks = (await engine('GET', '/networks')) as { Name: string }[];
      assert.ok(
        !networks.some((n) => n.Name.startsWith(project)),
        JSON.stringify(networks.map((n) => n.Name)),
      );
      const { Volumes } = (await engine('GET', '/volumes')) as { Volumes: { Name: string }[] | null };
      assert.deepEqual(
        (Volumes ?? []).map((v) => v.Name),
        [],
      );
    });

    test('up and down of a compose file from the app, through the installed docker-compose', async () => {
      await page.getByRole('button', { name: 'Compose…' }).click();
      const dialog = page.getByRole('dialog', { name: 'Compose up or down' });
      await dialog.getByText(/^docker-compose 1\./).waitFor();
      await dialog.getByLabel('Project name').fill('e2eui');
      await dialog
        .getByLabel('Its text')
        .fill(
          `version: "2.4"\nservices:\n  solo:\n    image: ${image}\n    command: ["sleep", "600"]\n    stop_grace_period: 1s\n`,
        );
      await dialog.getByRole('button', { name: 'Up', exact: true }).click();
      await dialog
        .getByTestId('compose-output')
        .filter({ hasText: /Creating e2eui_solo_1/ })
        .waitFor({ timeout: 60_000 });
      const row = page.locator('[data-testid=project-row][data-project=e2eui]');
      await row.getByTestId('project-state').filter({ hasText: '1 running' }).waitFor();
      await dialog.getByRole('button', { name: 'Down', exact: true }).click();
      await dialog
        .getByTestId('compose-output')
        .filter({ hasText: /Removing network e2eui_default/ })
        .waitFor({ timeout: 60_000 });
      await row.waitFor({ state: 'detached' });
      await dialog.getByRole('button', { name: 'Close' }).click();
    });
  },
);
