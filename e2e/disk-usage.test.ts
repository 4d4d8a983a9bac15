// The Disk usage screen in web mode against the real svcd: what each kind takes and what a prune
// frees; a prune per kind and "Clean up everything", confirmed naming exactly what goes.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { pushTestImage } from './registry-push';
import { missingPrerequisite, startSession, type Session, type WebApp } from './web-mode-fixture';

describe('the Disk usage screen in web mode', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let app: WebApp;
  let page: Page;
  let image: string;
  let spare: string;
  let spareId: string;
  let engine: EngineCall;
  const run = async (name: string, cmd: string[], volume?: string) => {
    const { Id } = (await engine('POST', `/containers/create?name=${name}`, {
      Image: image,
      Cmd: cmd,
      HostConfig: { NetworkMode: 'none', Binds: volume ? [`${volume}:/data`] : [] },
    })) as { Id: string };
    await engine('POST', `/containers/${Id}/start`);
    return Id;
  };
  const row = (kind: string) => page.locator(`tr[data-kind="${kind}"]`);

  before(async () => {
    session = await startSession();
    ({ app, page } = session);
    engine = engineCaller(app);
    image = await pullBusybox(app);
    await engine('POST', '/volumes/create', { Name: 'du-kept' });
    await engine('POST', '/volumes/create', { Name: 'du-done' });
    await engine('POST', '/volumes/create', { Name: 'du-spare' });
    await run('du-running', ['sleep', '600'], 'du-kept');
    // An image under three names, used only by a created container: one image, freed by "everything".
    await pushTestImage(app.registryUrl, 'e2e/spare', '1.0', false);
    spare = `${app.registryUrl.replace('http://', '')}/e2e/spare:1.0`;
    await (
      await fetch(`${app.base}/engine/images/create?fromImage=${encodeURIComponent(spare)}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${app.token}` },
      })
    ).text();
    for (const [repo, tag] of [
      ['e2e/spare', 'two'],
      ['e2e/spare-too', 'three'],
    ])
      await engine('POST', `/images/${encodeURIComponent(spare)}/tag?repo=${repo}&tag=${tag}`);
    spareId = ((await engine('GET', `/images/${encodeURIComponent(spare)}/json`)) as { Id: string }).Id;
    await engine('POST', '/containers/create?name=du-created', {
      Image: spare,
      Cmd: ['cat', '/hello.txt'],
      HostConfig: { NetworkMode: 'none' },
    });
    const done = await run('du-done', ['sh', '-c', 'head -c 5000 /dev/zero > /data/blob'], 'du-done');
    await engine('POST', `/containers/${done}/wait`);
    await page.goto(app.launchUrl + '#/disk');
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('shows each kind with its total, what is in use and what a prune would free', async () => {
    await page.getByRole('heading', { name: 'Disk usage' }).waitFor();
    await row('containers').getByRole('cell').nth(1).filter({ hasText: '3' }).waitFor();
    // Two images, however many names they have.
    await row('images').getByRole('cell').nth(1).filter({ hasText: /^2$/ }).waitFor();
    await row('containers').getByRole('cell').nth(2).filter({ hasText: '1' }).waitFor();
    await row('volumes').getByRole('cell').nth(1).filter({ hasText: '3' }).waitFor();
    // du-done's 5 kB count as reclaimable only once its container goes: a volume prune alone keeps it.
    await row('volumes').getByRole('cell').nth(2).filter({ hasText: '2' }).waitFor();
    await session.shot('disk-usage');
  });

  test('a prune of one kind names what it removes, and removes only that', async () => {
    await row('volumes').getByRole('button', { name: 'Remove unused volumes' }).click();
    const dialog = page.getByRole('dialog', { name: 'Remove unused volumes?' });
    const listed = await dialog.getByTestId('will-remove').innerText();
    assert.match(listed, /1 unused volume: du-spare/);
    assert.doesNotMatch(listed, /du-kept|du-done/);
    await dialog.getByRole('button', { name: 'Remove' }).click();
    await page.getByTestId('toasts').getByRole('status').filter({ hasText: 'Removed volumes' }).waitFor();
    const left = (await engine('GET', '/volumes')) as { Volumes: { Name: string }[] };
    assert.deepEqual(left.Volumes.map((v) => v.Name).sort(), ['du-done', 'du-kept']);
  });

  test('clean up everything: the summary names the stopped container and what it frees; running ones stay', async () => {
    await page.getByRole('button', { name: 'Clean up everything' }).click();
    const dialog = page.getByRole('dialog', { name: 'Clean up everything?' });
    const listed = await dialog.getByTestId('will-remove').innerText();
    assert.match(listed, /2 stopped containers: (du-done, du-created|du-created, du-done)/);
    // The image by its ID, with each of the names that go with it.
    const spareLine = /1 unused image: (\S+) \((.*)\)/.exec(listed);
    assert.ok(spareLine, listed);
    assert.equal(spareLine[1], spareId.slice(7, 19));
    assert.deepEqual(spareLine[2].split(', ').sort(), [spare, 'e2e/spare-too:three', 'e2e/spare:two'].sort());
    // What will be freed is the spare image's size at least, not 0 B.
    assert.doesNotMatch(await dialog.innerText(), /About 0 B will be freed/);
    assert.match(listed, /1 unused volume: du-done/);
    assert.match(listed, /the build cache/);
    assert.doesNotMatch(listed, /du-running|du-kept|e2e\/busybox/);
    await dialog.getByRole('button', { name: 'Clean up' }).click();
    const toastText = await page
      .getByTestId('toasts')
      .getByRole('status')
      .filter({ hasText: 'Removed containers, images, volumes, build cache' })
      .innerText();
    // Measured: the spare image's layer and the 5 kB volume went, so not 0 B.
    assert.doesNotMatch(toastText, / 0 B reclaimed/);
    assert.match(toastText, /\d+(\.\d)? (kB|MB) reclaimed/);
    const containers = (await engine('GET', '/containers/json?all=1')) as { Names: string[] }[];
    assert.deepEqual(
      containers.map((c) => c.Names[0]),
      ['/du-running'],
    );
    const volumes = (await engine('GET', '/volumes')) as { Volumes: { Name: string }[] };
    assert.deepEqual(
      volumes.Volumes.map((v) => v.Name),
      ['du-kept'],
    );
    const images = (await engine('GET', '/images/json')) as { RepoTags: string[] }[];
    assert.ok(
      images.some((i) => i.RepoTags.includes(image)),
      'the running container keeps its image',
    );
    assert.ok(!images.some((i) => i.RepoTags.includes(spare)), 'the unused image went');
    await row('containers').getByRole('cell').nth(1).filter({ hasText: '1' }).waitFor();
  });
});
