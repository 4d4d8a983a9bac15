// The four looks every screen is shot in (light and dark, 1440×900 and 1024×700), and a shot of
// the page as it is now in each of them: the state a test built stays, only the window and the
// system's colour scheme change. Saved under test-artifacts/screenshots/ for people to look at.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { pollUntil } from '../daemon/testing/poll';
import { root } from './web-mode-fixture';

export const screenshotsDir = join(root, 'test-artifacts', 'screenshots');

export const looks = [
  { scheme: 'light', width: 1440, height: 900 },
  { scheme: 'dark', width: 1440, height: 900 },
  { scheme: 'light', width: 1024, height: 700 },
  { scheme: 'dark', width: 1024, height: 700 },
] as const;

/** How far the page and the screen scroll sideways: neither may. */
export async function sidewaysOverflow(page: Page): Promise<number> {
  return (await page.evaluate(`(() => {
    const main = document.querySelector('main');
    const doc = document.documentElement;
    return Math.max(doc.scrollWidth - doc.clientWidth, main.scrollWidth - main.clientWidth);
  })()`)) as number;
}

/**
 * Saves `<name>-<scheme>-<w>x<h>.png` of the page in each look; answers the looks in which the
 * page or its screen scrolls sideways. The page goes back to its size and scheme after.
 */
export async function shootLooks(page: Page, name: string): Promise<string[]> {
  mkdirSync(screenshotsDir, { recursive: true });
  const size = page.viewportSize();
  const tooWide: string[] = [];
  for (const look of looks) {
    await page.emulateMedia({ colorScheme: look.scheme });
    await page.setViewportSize({ width: look.width, height: look.height });
    await pollUntil(`the ${look.scheme} theme`, async () =>
      (await page.evaluate('document.documentElement.dataset.theme')) === look.scheme ? true : undefined,
    );
    // Controls fade to the new scheme's colours: the shot waits until they are there.
    await pollUntil('the colour transitions to end', async () =>
      (await page.evaluate("document.getAnimations().every((a) => a.playState !== 'running')"))
        ? true
        : undefined,
    );
    await page.screenshot({
      path: join(screenshotsDir, `${name}-${look.scheme}-${look.width}x${look.height}.png`),
    });
    const overflow = await sidewaysOverflow(page);
    if (overflow > 0) tooWide.push(`${name} at ${look.width}px (${look.scheme}) by ${overflow}px`);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  if (size) await page.setViewportSize(size);
  return tooWide;
}
