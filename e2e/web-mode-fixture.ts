// Starts the app as `npm start` does in web mode (build/electron/main/launch.js --web) on temp
// data roots, with the real svcd and svc-registry from build/, and stops it afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { freePort } from '../daemon/testing/free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';
import { findRepoRoot } from '../electron/main/supervisor/default-services';
import { cleanupUnder, commandAsUser, userDirEnv } from '../daemon/testing/svcd-harness';
import { makeRootlessDir } from '../daemon/testing/rootless-harness';

export const root = findRepoRoot(__dirname);
export const chromiumPath = '/usr/bin/chromium';
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  // Headless Chromium loads its omnibox popup (a WebUI page, ~0.8 s of CPU) for every new
  // context, which no page of ours needs: on 2 cores it slowed the app's start it shares them with.
  '--disable-features=WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup',
];

/** The containers screen has settled: rows, the empty state, or the engine's own error. */
export const CONTAINERS_SETTLED =
  '[data-testid=containers-empty], [data-testid=container-row], main [role=alert]';

export function launchChromium(extraArgs: string[] = []): Promise<Browser> {
  return chromium.launch({ executablePath: chromiumPath, args: [...chromiumArgs, ...extraArgs] });
}

/** Why the e2e cannot run here, or undefined when it can. */
export function missingPrerequisite(): string | undefined {
  const needed = [
    join(root, 'build', 'daemon', 'bin', 'svcd.js'),
    join(root, 'build', 'daemon', 'bin', 'svc-registry.js'),
    join(root, 'renderer', 'dist', 'index.html'),
    chromiumPath,
  ];
  const missing = needed.filter((f) => !existsSync(f));
  return missing.length ? `missing ${missing.join(', ')}` : undefined;
}

// Callers of this fixture take their ports from it too.
export { freePort };

export interface WebApp {
  /** The URL printed by web mode, token included. */
  launchUrl: string;
  base: string;
  token: string;
  registryUrl: string;
  dir: string;
  /** The DOCKER_HOST line web mode printed. */
  dockerHost: string;
  /** Milliseconds from spawn to the printed URL. */
  urlAfterMs: number;
  /** The app's own process (web mode's launch.js), as `npm start` runs it after the build. */
  pid: number;
  /** How the app's process ended, once it has. */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stop(): Promise<void>;
}

async function removeContainers(base: string, token: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const list = await fetch(`${base}/engine/containers/json?all=1`, { headers });
  if (!list.ok) return;
  for (const { Id } of (await list.json()) as Array<{ Id: string }>) {
    await (await fetch(`${base}/engine/containers/${Id}?force=1&v=1`, { method: 'DELETE', headers })).text();
  }
}

export interface WebAppOptions {
  /**
   * Run web mode as the unprivileged test user (rootless-harness.ts), as `npm start` by a person:
   * its own rootless svcd, data directory and socket at their defaults under the user's HOME and
   * XDG_RUNTIME_DIR (in the suite's directory).
   */
  rootless?: boolean;
  /** The user's supplementary groups (with `rootless`): the system socket's group, say. */
  groups?: number[];
  /** The system engine's socket; default one in the suite's directory that nothing serves. */
  systemSocket?: string;
  /** Variables added to the app's environment (as root): a PATH with a test's own ssh wrapper. */
  env?: NodeJS.ProcessEnv;
  /**
   * The app in a process group of its own, as a terminal runs `npm start`: a signal to the
   * group (-pid) is a Ctrl-C there.
   */
  ownProcessGroup?: boolean;
}

export async function startWebApp(opts: WebAppOptions = {}): Promise<WebApp> {
  const rootless = opts.rootless ? await makeRootlessDir('svc-desktop-e2e-') : undefined;
  const dir = rootless?.dir ?? mkdtempSync(join(tmpdir(), 'svc-desktop-e2e-'));
  const registryPort = await freePort();
  const appArgs = [
    join(root, 'build', 'electron', 'main', 'launch.js'),
    '--web',
    // As root, the app's data and svcd's socket in the suite's directory.
    ...(rootless ? [] : ['--data-dir', join(dir, 'data'), '--engine-socket', join(dir, 'svcd.sock')]),
    // By default no system engine: the app runs its own, whatever runs on this machine's /run/svc.
    '--system-socket',
    opts.systemSocket ?? join(dir, 'system.sock'),
    // A bridge of its own: suites running side by side must not share svc0.
    '--engine-bridge',
    `svce${randomBytes(4).toString('hex')}`,
    '--registry-port',
    String(registryPort),
  ];
  const app = { command: process.execPath, args: appArgs };
  const { command, args } = rootless ? commandAsUser(rootless.user, app, opts.groups) : app;
  const t0 = performance.now();
  const child: ChildProcess = spawn(command, args, {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: rootless ? userDirEnv(dir) : { ...process.env, ...opts.env },
    detached: opts.ownProcessGroup,
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  let stderr = '';
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  let out = '';
  const launchUrl = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /Svc Desktop \(web mode\): (\S+)\n.*DOCKER_HOST=(\S+)\n/.exec(out);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`web mode exited with ${code}: ${stderr}`)));
  });
  const urlAfterMs = performance.now() - t0;
  const u = new URL(launchUrl);
  return {
    launchUrl,
    dockerHost: /DOCKER_HOST=(\S+)/.exec(out)![1],
    base: u.origin,
    token: u.searchParams.get('token')!,
    registryUrl: `http://127.0.0.1:${registryPort}`,
    dir,
    urlAfterMs,
    pid: child.pid!,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        // Removed through the engine while it runs, so each container's network endpoints
        // (CNI's iptables rules among them) go with it; killing them later would leave those.
        await removeContainers(u.origin, u.searchParams.get('token')!).catch(() => undefined);
        child.kill('SIGTERM');
        await exited;
      }
      // Containers keep running when the app quits; the suite's must not outlive it.
      await cleanupUnder(dir);
    },
  };
}

export interface ServiceView {
  name: string;
  status: string;
  reason?: string;
}

/** Waits until both servers are up; a failed one ends the wait with its reason. */
export async function waitForServices(app: WebApp, timeoutMs = 60_000): Promise<ServiceView[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await fetch(`${app.base}/api/state`, { headers: { authorization: `Bearer ${app.token}` } });
    const { services } = (await res.json()) as { services: ServiceView[] };
    const failed = services.find((s) => s.status === 'failed');
    if (failed) throw new Error(`${failed.name} failed: ${failed.reason}`);
    if (services.every((s) => s.status === 'up')) return services;
    if (Date.now() > deadline) throw new Error(`servers not up: ${JSON.stringify(services)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export interface Session {
  app: WebApp;
  browser: Browser;
  page: Page;
  /** Another page in a context of its own, with the session's deadlines; closing it closes both. */
  newPage(options?: BrowserContextOptions): Promise<Page>;
  /** Saves a screenshot of the page under test-artifacts/desktop/. */
  shot(name: string, page?: Page): Promise<void>;
  stop(): Promise<void>;
}

/**
 * How long a page action or wait may take: twice Playwright's 30 s, for suites that share two
 * cores with three others. A wait still ends as soon as what it awaits is on screen.
 */
const actionTimeoutMs = 60_000;

/** Web mode with both servers up, and a Chromium page (not yet navigated) to drive it. */
export async function startSession(opts: WebAppOptions = {}): Promise<Session> {
  const artifacts = join(root, 'test-artifacts', 'desktop');
  mkdirSync(artifacts, { recursive: true });
  const app = await startWebApp(opts);
  try {
    await waitForServices(app);
  } catch (err) {
    await app.stop();
    throw err;
  }
  const browser = await launchChromium();
  // What a timed-out wait cannot say: the renderer threw, a request failed, or the page died.
  // Printed at stop.
  const troubles: string[] = [];
  const newPage = async (options?: BrowserContextOptions): Promise<Page> => {
    const page = await browser.newPage(options);
    page.setDefaultTimeout(actionTimeoutMs);
    page.on('pageerror', (err) =>
      troubles.push(`${new Date().toISOString()} page error: ${err.stack ?? err}`),
    );
    page.on('crash', () => troubles.push(`${new Date().toISOString()} the page crashed`));
    // A stream the app closed is aborted by design; any other failed request is news.
    page.on('requestfailed', (r) => {
      const failure = r.failure()?.errorText ?? '';
      if (failure !== 'net::ERR_ABORTED')
        troubles.push(
          `${new Date().toISOString()} ${r.method()} ${r.url().split('?')[0]} failed: ${failure}`,
        );
    });
    return page;
  };
  const page = await newPage({ viewport: { width: 1280, height: 800 } });
  return {
    app,
    browser,
    page,
    newPage,
    shot: async (name, p = page) =>
      void (await p.screenshot({ path: join(artifacts, `${name}.png`), fullPage: true })),
    async stop() {
      if (troubles.length) process.stderr.write(`the renderer in this session:\n${troubles.join('\n')}\n`);
      await browser.close();
      await app.stop();
    },
  };
}

/** Runs a command palette action: typed, the first option waited for, then Enter. */
export async function runFromPalette(page: Page, text: string): Promise<void> {
  await page.keyboard.press('Control+k');
  const dialog = page.getByRole('dialog', { name: 'Command palette' });
  const input = dialog.getByRole('combobox', { name: 'Command' });
  await input.fill(text);
  // In the palette: the engine switcher's <select> has options too.
  await dialog.getByRole('option').first().filter({ hasText: text }).waitFor();
  await input.press('Enter');
}
