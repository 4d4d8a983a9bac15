// `npm start`: the Electron app where Electron can run (its binary is installed and there is a
// display), otherwise web mode: the same supervisor and gateway, the UI in any browser.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { desktopOptionsFrom, startDesktop } from './desktop';
import { findRepoRoot } from './supervisor/default-services';

/** The binary the electron package downloaded at install (path.txt names it), if it did. */
function electronBinary(): string | undefined {
  try {
    const dir = dirname(require.resolve('electron/package.json'));
    const bin = join(dir, 'dist', readFileSync(join(dir, 'path.txt'), 'utf8').trim());
    return existsSync(bin) ? bin : undefined;
  } catch {
    return undefined;
  }
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const hasDisplay = Boolean(process.env.DISPLAY || process.env.WAYLAND_DISPLAY);
  const electron = argv.includes('--web') ? undefined : electronBinary();
  if (electron && hasDisplay) {
    const child = spawn(electron, [findRepoRoot(__dirname), ...argv], { stdio: 'inherit' });
    child.on('exit', (code) => process.exit(code ?? 0));
    // `npm start` stopped by SIGTERM (or Ctrl-C): Electron quits, and stops what it started.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => child.kill(signal));
    return;
  }
  const why = !electron ? 'no Electron binary' : 'no display';
  const desktop = await startDesktop(desktopOptionsFrom(argv, process.env));
  const { url, token } = desktop.gateway;
  process.stdout.write(`Svc Desktop (web mode): ${url}/?token=${token}\n`);
  process.stdout.write(`docker CLI: export DOCKER_HOST=${desktop.dockerHost}\n`);
  process.stderr.write(`engine: ${desktop.engine.mode} (${desktop.engine.reason})\n`);
  process.stderr.write(`(web mode because: ${why}; Ctrl-C stops the app and the servers it started)\n`);
  desktop.supervisor.on('state', (s) => {
    process.stderr.write(`${s.name}: ${s.status}${s.reason ? ` (${s.reason})` : ''}\n`);
  });
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await desktop.stop();
    process.exit(0);
  };
  process.on('SIGINT', () => void stop());
  process.on('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`svc-desktop: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
