// The app with a keyboard alone, at 1024×700, in web mode against the real svcd and registry:
// every screen's and every dialog's Tab order reaches each visible enabled control and shows a
// focus ring on it (dialogs keep focus inside and give it back when they close); then a whole
// session — sections, the run dialog, a container's tabs, stop, remove with confirmation, row
// keys, tagging an image, Settings and the command palette — with no mouse.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import type { Locator, Page } from 'playwright-core';
import { engineCaller, pullBusybox, type EngineCall } from './engine-calls';
import { missingPrerequisite, startSession, type Session } from './web-mode-fixture';

interface Walk {
  /** Controls that never had focus, described. */
  missed: string[];
  /** Controls that had focus without a visible ring. */
  noRing: string[];
  /** Elements outside the open dialog that took focus. */
  escaped: string[];
  /** Elements that look clickable (a pointer cursor) but no key reaches. */
  pointerOnly: string[];
  /** How many controls the walk expected. */
  total: number;
}

/**
 * Marks every control a Tab should reach (in the open dialog, or the whole page), presses Tab
 * until each had focus (or twice their number), and says which never had it, which had it with
 * no ring (no outline and no box-shadow), and what outside a dialog took it. Radio groups count
 * once (the arrows move within them); the terminal keeps Tab for the shell and is left out.
 */
async function walkTabOrder(page: Page): Promise<Walk> {
  const total = (await page.evaluate(`(() => {
    const root = document.querySelector('dialog[open]') ?? document;
    const groups = new Set();
    const controls = [...root.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')]
      .filter((el) => {
        if (el.closest('.xterm, [inert], [hidden]') || el.matches(':disabled') || el.tabIndex < 0) return false;
        if (el.type === 'hidden' || !el.checkVisibility({ visibilityProperty: true })) return false;
        if (el.type === 'radio') {
          const group = [...root.querySelectorAll('input[type=radio]')].filter((r) => r.name === el.name);
          const stop = group.find((r) => r.checked && !r.disabled) ?? group.find((r) => !r.disabled);
          if (stop !== el || groups.has(el.name)) return false;
          groups.add(el.name);
        }
        return true;
      });
    // What looks clickable (a pointer) but is no control and sits in none: a mouse-only target.
    const control = 'a[href], button, input, select, textarea, summary, label, [tabindex], [role=option]';
    window.__pointerOnly = [...root.querySelectorAll('*')]
      .filter((el) => getComputedStyle(el).cursor === 'pointer' && !el.closest(control) && el.checkVisibility())
      .filter((el) => getComputedStyle(el.parentElement).cursor !== 'pointer')
      .map((el) => el.tagName.toLowerCase() + '.' + el.className);
    document.querySelectorAll('[data-kbd]').forEach((el) => delete el.dataset.kbd);
    controls.forEach((el, i) => (el.dataset.kbd = String(i)));
    if (!document.querySelector('dialog[open]')) document.activeElement?.blur?.();
    return controls.length;
  })()`)) as number;
  const seen = new Set<string>();
  const noRing = new Set<string>();
  const escaped = new Set<string>();
  for (let i = 0; i < total * 2 + 10 && seen.size < total; i++) {
    await page.keyboard.press('Tab');
    const at = (await page.evaluate(`(() => {
      const el = document.activeElement;
      if (!el || el === document.body) return { id: 'body' };
      const dialog = document.querySelector('dialog[open]');
      // A picker whose native input is hidden shows the ring on its label.
      const shown = el.matches('.sr-only') ? el.closest('label') ?? el : el;
      const s = getComputedStyle(shown);
      const ring = (s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) > 0) || s.boxShadow !== 'none';
      const name = (el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || el.type || '').trim();
      return {
        id: el.dataset.kbd,
        what: el.tagName.toLowerCase() + ' "' + name.slice(0, 40) + '"',
        ring,
        outside: !!dialog && !dialog.contains(el),
      };
    })()`)) as { id?: string; what?: string; ring?: boolean; outside?: boolean };
    if (at.id === 'body') continue;
    if (at.outside) escaped.add(at.what!);
    if (at.id === undefined) continue;
    seen.add(at.id);
    if (!at.ring) noRing.add(at.what!);
  }
  const missed = (await page.evaluate(`[...document.querySelectorAll('[data-kbd]')]
    .filter((el) => !${JSON.stringify([...seen])}.includes(el.dataset.kbd))
    .map((el) => el.tagName.toLowerCase() + ' "' + (el.getAttribute('aria-label') || el.textContent || el.getAttribute('placeholder') || el.type || '').trim().slice(0, 40) + '"')`)) as string[];
  const pointerOnly = (await page.evaluate('window.__pointerOnly')) as string[];
  return { missed, noRing: [...noRing], escaped: [...escaped], pointerOnly, total };
}

/** Presses Tab until `target` has focus: it is reachable by Tab from where focus is. */
async function tabTo(page: Page, target: Locator, key = 'Tab', max = 120): Promise<void> {
  await target.waitFor();
  for (let i = 0; i < max; i++) {
    if (await isFocused(target)) return;
    await page.keyboard.press(key);
  }
  assert.fail(`not reached after ${max} presses of ${key}: ${target.toString()}`);
}

/**
 * Waits until `expression` is true in the page (page.waitForFunction evaluates in the page,
 * which the app's Content Security Policy forbids).
 */
async function until(page: Page, expression: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await page.evaluate(expression))) {
    if (Date.now() > deadline) assert.fail(`still false after ${timeoutMs} ms: ${expression}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function isFocused(target: Locator): Promise<boolean> {
  return target.evaluate((el) => el.matches(':focus'));
}

/** The element with focus has this accessible name (its label or its text). */
async function focusedName(page: Page): Promise<string> {
  return (await page.evaluate(
    `(document.activeElement.getAttribute('aria-label') || document.activeElement.textContent || '').trim()`,
  )) as string;
}

/** Runs a palette command by typing, checking it is the option chosen, then Enter. */
async function palette(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Command palette' });
  await dialog.waitFor();
  await page.keyboard.type(text);
  await dialog.getByRole('option', { selected: true }).filter({ hasText: text }).waitFor();
  await page.keyboard.press('Enter');
  await dialog.waitFor({ state: 'detached' });
}

describe('the app with the keyboard only, at 1024×700', { skip: missingPrerequisite() }, () => {
  let session: Session;
  let page: Page;
  let engine: EngineCall;
  let image: string;
  let web: string;

  before(async () => {
    session = await startSession();
    page = session.page;
    engine = engineCaller(session.app);
    await page.setViewportSize({ width: 1024, height: 700 });
    image = await pullBusybox(session.app);
    await engine('POST', '/volumes/create', { Name: 'kbd-data' });
    ({ Id: web } = (await engine('POST', '/containers/create?name=kbd-walk', {
      Image: image,
      Cmd: ['sh', '-c', 'echo walk line; sleep 600'],
      HostConfig: { NetworkMode: 'none' },
    })) as { Id: string });
    await engine('POST', `/containers/${web}/start`);
    await page.goto(session.app.launchUrl);
    await page.getByTestId('engine-status').filter({ hasText: 'Engine up' }).waitFor();
  });

  after(async () => {
    await session?.stop();
  });

  test('every screen: Tab reaches each visible enabled control, each with a focus ring', async () => {
    const repo = 'e2e/busybox';
    const screens: [string, string, (p: Page) => Locator][] = [
      ['containers', '#/containers', (p) => p.getByTestId('container-row')],
      ['container summary', `#/containers/${web}/summary`, (p) => p.getByRole('tabpanel').getByText('Image')],
      ['container logs', `#/containers/${web}/logs`, (p) => p.getByText('walk line')],
      ['container stats', `#/containers/${web}/stats`, (p) => p.locator('.time-chart .series[points*=" "]')],
      ['container files', `#/containers/${web}/files`, (p) => p.getByRole('button', { name: 'bin/' })],
      ['images', '#/images', (p) => p.getByRole('cell', { name: new RegExp(repo) })],
      [
        'image summary',
        `#/images/${encodeURIComponent(image)}/summary`,
        (p) => p.getByRole('tabpanel').getByText('Platform'),
      ],
      ['image layers', `#/images/${encodeURIComponent(image)}/layers`, (p) => p.getByRole('tree')],
      [
        'image history',
        `#/images/${encodeURIComponent(image)}/history`,
        (p) => p.getByRole('table', { name: 'History' }).getByRole('row').nth(1),
      ],
      [
        'image containers',
        `#/images/${encodeURIComponent(image)}/containers`,
        (p) => p.getByRole('tabpanel').getByRole('link', { name: 'kbd-walk' }),
      ],
      ['volumes', '#/volumes', (p) => p.getByRole('cell', { name: 'kbd-data', exact: true })],
      ['networks', '#/networks', (p) => p.getByRole('link', { name: 'bridge', exact: true })],
      ['registry', `#/registry/${encodeURIComponent(repo)}/1.0`, (p) => p.getByTestId('image-config')],
      ['events', '#/events', (p) => p.getByRole('heading', { name: 'Events' })],
      ['disk usage', '#/disk', (p) => p.locator('tr[data-kind=images]')],
      ['settings', '#/settings', (p) => p.getByTestId('usage').getByText('svcd', { exact: true })],
      [
        'all engines',
        '#/all-engines',
        (p) => p.getByRole('table', { name: 'Containers of all engines' }).getByRole('link'),
      ],
    ];
    const problems: string[] = [];
    for (const [name, hash, ready] of screens) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await ready(page).first().waitFor();
      const walk = await walkTabOrder(page);
      assert.ok(walk.total > 5, `${name}: only ${walk.total} controls found`);
      if (walk.missed.length) problems.push(`${name}: never focused: ${walk.missed.join(', ')}`);
      if (walk.noRing.length) problems.push(`${name}: no focus ring: ${walk.noRing.join(', ')}`);
      if (walk.pointerOnly.length) problems.push(`${name}: mouse only: ${walk.pointerOnly.join(', ')}`);
    }
    assert.deepEqual(problems, []);
  });

  test('every dialog: Tab stays inside and reaches each control, Escape closes it and focus comes back', async () => {
    const repo = 'e2e/busybox';
    const dialogs: [string, string, string, string][] = [
      // [screen, palette command, dialog name, …]
      ['#/containers', 'Run container', 'Run a container', ''],
      ['#/containers', 'Remove container kbd-walk', 'Remove kbd-walk?', ''],
      ['#/images', 'Pull image', 'Pull an image', ''],
      ['#/images', 'Load image from a file', 'Load an image archive', ''],
      ['#/images', 'Import a root filesystem', 'Import a root filesystem', ''],
      ['#/images', `Tag image ${image}`, '', '^Tag '],
      ['#/images', `Push image ${image}`, `Push ${image}`, ''],
      ['#/images', `Remove image ${image}`, `Remove ${image}?`, ''],
      ['#/volumes', 'Remove volume kbd-data', 'Remove volume kbd-data?', ''],
      ['#/volumes', 'Prune unused volumes', 'Prune unused volumes?', ''],
      ['#/registry', 'Add a registry', 'Add a registry', ''],
      ['#/registry', 'Push to a registry from an engine', '', '^Push to '],
      [`#/registry/${encodeURIComponent(repo)}/1.0`, `Pull ${repo}:1.0 into an engine`, 'Pull an image', ''],
      [
        `#/registry/${encodeURIComponent(repo)}/1.0`,
        `Copy ${repo}:1.0 to a registry`,
        `Copy ${repo}:1.0`,
        '',
      ],
      [`#/registry/${encodeURIComponent(repo)}/1.0`, `Delete tag ${repo}:1.0`, `Delete tag ${repo}:1.0?`, ''],
      ['#/disk', 'Clean up everything', 'Clean up everything?', ''],
    ];
    const problems: string[] = [];
    for (const [hash, command, title, pattern] of dialogs) {
      await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
      await page.locator('main h1').first().waitFor();
      // Something on the screen has focus when the dialog opens: it gets it back.
      await page.keyboard.press('Tab');
      await page.keyboard.press('Tab');
      const before = (await page.evaluate('document.activeElement.outerHTML.slice(0, 120)')) as string;
      await palette(page, command);
      const dialog = page.getByRole('dialog', { name: pattern ? new RegExp(pattern) : title, exact: true });
      await dialog.waitFor();
      const walk = await walkTabOrder(page);
      if (walk.missed.length) problems.push(`${command}: never focused: ${walk.missed.join(', ')}`);
      if (walk.noRing.length) problems.push(`${command}: no focus ring: ${walk.noRing.join(', ')}`);
      if (walk.escaped.length)
        problems.push(`${command}: focus left the dialog for ${walk.escaped.join(', ')}`);
      if (walk.pointerOnly.length) problems.push(`${command}: mouse only: ${walk.pointerOnly.join(', ')}`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      // Focus goes back to the page (the control that had it, or the screen's heading), not to nowhere.
      await until(page, 'document.activeElement && document.activeElement !== document.body');
      const after = (await page.evaluate('document.activeElement.outerHTML.slice(0, 120)')) as string;
      if (after !== before && !after.startsWith('<h1'))
        problems.push(`${command}: focus came back to ${after}`);
    }
    assert.deepEqual(problems, []);
  });

  test('a whole session with the keyboard alone', async () => {
    const nav = page.getByRole('navigation', { name: 'Sections' });
    // Each section by its shortcut, and by Tab and Enter on its link.
    const sections = [
      'Containers',
      'Images',
      'Volumes',
      'Networks',
      'Registry',
      'Events',
      'Disk usage',
      'Settings',
    ];
    for (const [i, name] of sections.entries()) {
      await page.keyboard.press(`Alt+${i + 1}`);
      await page.getByRole('heading', { name, exact: true, level: 1 }).waitFor();
    }
    await page.keyboard.press('Alt+9');
    await page.getByRole('heading', { name: 'All engines', level: 1 }).waitFor();
    await page.evaluate('document.activeElement?.blur()');
    await tabTo(page, nav.getByRole('link', { name: /Images/ }));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Images', exact: true, level: 1 }).waitFor();

    // The run dialog, from the containers screen's button.
    await page.keyboard.press('Alt+1');
    await tabTo(page, page.getByRole('button', { name: 'Run container…' }));
    await page.keyboard.press('Enter');
    const run = page.getByRole('dialog', { name: 'Run a container' });
    await run.waitFor();
    assert.ok(await isFocused(run.getByLabel('Image')), 'the image field has focus first');
    await page.keyboard.type(image);
    await page.keyboard.press('Tab');
    await page.keyboard.type('kbd-web');
    await page.keyboard.press('Tab');
    await page.keyboard.type('sh -c "echo hello from the keys; sleep 300"');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'kbd-web', level: 1 }).waitFor({ timeout: 60_000 });
    await page.locator('.badge.state-running').waitFor({ timeout: 30_000 });

    // Its tabs, with the arrows.
    await tabTo(page, page.getByRole('tab', { name: 'Summary' }));
    await page.keyboard.press('ArrowRight');
    await page.getByRole('tab', { name: 'Logs', selected: true }).waitFor();
    assert.equal(await focusedName(page), 'Logs');
    await page.getByText('hello from the keys').waitFor();
    await page.keyboard.press('ArrowRight');
    await page.locator('.badge.term-connected').waitFor({ timeout: 20_000 });
    // The shell has the keys once connected; Ctrl+Shift+L gives them back to the terminal's tab.
    await until(page, `document.activeElement?.closest('.xterm')`);
    await page.keyboard.type('echo typed-$((20+22))');
    await page.keyboard.press('Enter');
    const rows = page.getByTestId('terminal').locator('.xterm-rows > div');
    await rows.filter({ hasText: /^typed-42\s*$/ }).waitFor();
    await page.keyboard.press('Control+Shift+L');
    assert.equal(await focusedName(page), '1: /bin/sh');
    await tabTo(page, page.getByRole('tab', { name: 'Terminal' }), 'Shift+Tab');
    await page.keyboard.press('ArrowRight');
    await page.getByRole('tab', { name: 'Stats', selected: true }).waitFor();
    await page.keyboard.press('ArrowRight');
    await page.getByRole('tab', { name: 'Files', selected: true }).waitFor();
    await page.getByRole('button', { name: 'bin/' }).waitFor();
    await page.keyboard.press('End');
    await page.getByRole('tab', { name: 'Files', selected: true }).waitFor();
    await page.keyboard.press('Home');
    await page.getByRole('tab', { name: 'Summary', selected: true }).waitFor();

    // Stop, then Remove: Escape cancels and focus is back on Remove; Enter confirms.
    await tabTo(page, page.getByRole('button', { name: 'Stop', exact: true }));
    await page.keyboard.press('Enter');
    await page.locator('.badge.state-exited').waitFor({ timeout: 30_000 });
    await tabTo(page, page.getByRole('button', { name: 'Remove', exact: true }));
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('dialog', { name: 'Remove kbd-web?' });
    await confirm.waitFor();
    assert.equal(await focusedName(page), 'Remove', 'the confirming button has focus');
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await until(page, `document.activeElement?.textContent?.trim() === 'Remove'`);
    await page.keyboard.press('Enter');
    await confirm.waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Containers', exact: true, level: 1 }).waitFor();
    await page.getByTestId('container-row').filter({ hasText: 'kbd-web' }).waitFor({ state: 'detached' });

    // On the list: Enter on a row (its checkbox) opens it; Delete asks to remove it.
    const walkRow = page.getByTestId('container-row').filter({ hasText: 'kbd-walk' });
    await tabTo(page, walkRow.getByRole('checkbox'));
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'kbd-walk', level: 1 }).waitFor();
    await page.keyboard.press('Alt+1');
    await tabTo(page, walkRow.getByRole('checkbox'));
    await page.keyboard.press('Delete');
    const removeWalk = page.getByRole('dialog', { name: 'Remove kbd-walk?' });
    await removeWalk.waitFor();
    await page.keyboard.press('Escape');
    await removeWalk.waitFor({ state: 'detached' });
    assert.ok(await walkRow.isVisible(), 'Escape removed nothing');

    // Tag an image from its row.
    await page.keyboard.press('Alt+2');
    const row = page.getByRole('row', { name: new RegExp(image) });
    await tabTo(page, row.getByRole('button', { name: 'Tag…' }));
    await page.keyboard.press('Enter');
    const tag = page.getByRole('dialog', { name: /^Tag / });
    await tag.waitFor();
    await page.keyboard.type('kbd/tagged:2.0');
    await page.keyboard.press('Enter');
    await tag.waitFor({ state: 'detached' });
    await page.getByRole('cell', { name: 'kbd/tagged:2.0' }).waitFor();

    // Settings: the theme's radios move with the arrows.
    await page.keyboard.press('Alt+8');
    await tabTo(page, page.getByRole('radio', { name: 'system', exact: true }));
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await until(page, `document.documentElement.dataset.theme === 'dark'`);

    // The palette: each kind of action, each naming its object.
    await palette(page, 'Use the light theme');
    await until(page, `document.documentElement.dataset.theme === 'light'`);
    await palette(page, 'Show only image events');
    await page.getByRole('heading', { name: 'Events', level: 1 }).waitFor();
    assert.equal(await page.getByLabel('Event type').inputValue(), 'image');
    await page.getByRole('list', { name: 'Events' }).getByText('tag', { exact: true }).first().waitFor();
    await palette(page, 'Create volume');
    await until(
      page,
      `document.activeElement?.closest('dialog')?.getAttribute('aria-label') === 'Create a volume'`,
    );
    await page.keyboard.type('kbd-new');
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'kbd-new', exact: true }).waitFor();
    await palette(page, 'Remove volume kbd-new');
    await page.getByRole('dialog', { name: 'Remove volume kbd-new?' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'kbd-new', exact: true }).waitFor({ state: 'detached' });
    await palette(page, 'Remove image kbd/tagged:2.0');
    await page.getByRole('dialog', { name: 'Remove kbd/tagged:2.0?' }).waitFor();
    await page.keyboard.press('Enter');
    await page.getByRole('cell', { name: 'kbd/tagged:2.0' }).waitFor({ state: 'detached' });
    await palette(page, 'Stop container kbd-walk');
    await page.keyboard.press('Alt+1');
    await walkRow.getByText('exited', { exact: true }).waitFor({ timeout: 30_000 });
    await palette(page, 'Show logs of container kbd-walk');
    await page.getByRole('tab', { name: 'Logs', selected: true }).waitFor();
    await page.getByText('walk line').first().waitFor();
    const [log] = await Promise.all([
      page.waitForEvent('download'),
      palette(page, 'Download the full log of container kbd-walk'),
    ]);
    assert.equal(log.suggestedFilename(), 'kbd-walk.log');
    assert.match((await readFile(await log.path())).toString(), /walk line/);
    await palette(page, 'Collapse the sidebar');
    await nav.getByRole('button', { name: 'Expand sidebar' }).waitFor();
    await palette(page, 'Expand the sidebar');
    await nav.getByRole('button', { name: 'Collapse sidebar' }).waitFor();
    // Arrow keys choose among the options.
    await page.keyboard.press('Control+k');
    await page.keyboard.type('Browse registry');
    const options = page.getByRole('dialog', { name: 'Command palette' }).getByRole('option');
    await options.first().waitFor();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Registry', level: 1 }).waitFor();
    await page.getByTestId('repositories').getByRole('link', { name: 'e2e/busybox' }).waitFor();
    await palette(page, 'Browse repository e2e/busybox');
    await page.getByTestId('tags').getByRole('link', { name: '1.0' }).waitFor();
    await session.shot('keyboard-session');

    // Delete on a row, confirmed: the row goes, and focus lands on the screen's heading (its
    // checkbox is gone), so Tab goes on from the screen rather than from the top of the page.
    await page.keyboard.press('Alt+1');
    await tabTo(page, walkRow.getByRole('checkbox'));
    await page.keyboard.press('Delete');
    await removeWalk.waitFor();
    await page.keyboard.press('Enter');
    await walkRow.waitFor({ state: 'detached', timeout: 30_000 });
    await until(
      page,
      `document.activeElement?.matches('main h1') && document.activeElement.textContent === 'Containers'`,
    );
  });
});
