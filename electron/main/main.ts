// Electron's main process, kept thin: one instance, one window on the gateway's URL with the
// renderer locked down, a menu, and a tray icon that shows the engine's state.
import { app, BrowserWindow, dialog, ipcMain, Menu, nativeImage, shell, Tray } from 'electron';
import { join } from 'node:path';
import { desktopOptionsFrom, startDesktop, type Desktop } from './desktop';
import { readFolderFiles } from './folder-files';
import { servePreload } from './preload-api';
import { findRepoRoot } from './supervisor/default-services';
import type { ServiceState } from './supervisor/service-state';
import { opensInBrowser, permissionAllowed, staysInApp } from './window-policy';

let desktop: Desktop | undefined;
let win: BrowserWindow | undefined;
let tray: Tray | undefined;

function createWindow(d: Desktop): BrowserWindow {
  const w = new BrowserWindow({
    width: 1280,
    height: 820,
    title: 'Svc Desktop',
    show: false,
    webPreferences: {
      preload: join(__dirname, '..', 'preload', 'preload.js'),
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      webSecurity: true,
    },
  });
  w.once('ready-to-show', () => w.show());
  // The window stays on the gateway; links (published ports) open in the user's browser.
  w.webContents.setWindowOpenHandler(({ url }) => {
    if (opensInBrowser(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  w.webContents.on('will-navigate', (e, url) => {
    if (!staysInApp(url, d.gateway.url)) e.preventDefault();
  });
  w.webContents.session.setPermissionRequestHandler((_contents, permission, grant) =>
    grant(permissionAllowed(permission)),
  );
  w.webContents.session.setPermissionCheckHandler((_contents, permission) => permissionAllowed(permission));
  w.webContents.on('will-attach-webview', (e) => e.preventDefault());
  void w.loadURL(`${d.gateway.url}/`);
  return w;
}

function trayLabel(states: ServiceState[], mode: string): string {
  const engine = states.find((s) => s.name === 'svcd');
  return `Engine (${mode}): ${engine?.status ?? 'unknown'}${engine?.reason ? ` (${engine.reason})` : ''}`;
}

function updateTray(d: Desktop): void {
  const label = trayLabel(d.supervisor.states(), d.engine.mode);
  tray?.setToolTip(`Svc Desktop — ${label}`);
  tray?.setContextMenu(
    Menu.buildFromTemplate([
      { label, enabled: false },
      { label: 'Show window', click: () => (win ?? (win = createWindow(d))).show() },
      { label: 'Restart engine', click: () => void d.supervisor.restart('svcd') },
      { type: 'separator' },
      { label: 'Quit', click: () => app.quit() },
    ]),
  );
}

function buildMenu(): void {
  Menu.setApplicationMenu(
    Menu.buildFromTemplate([
      { role: 'fileMenu' },
      { role: 'editMenu' },
      { role: 'viewMenu' },
      { role: 'windowMenu' },
      {
        role: 'help',
        submenu: [{ label: 'Open logs folder', click: () => void shell.openPath(logsDir()) }],
      },
    ]),
  );
}

function logsDir(): string {
  // The registry's log is always the app's (svcd's is not when the engine is the system's).
  const registry = desktop?.supervisor.state('svc-registry');
  return registry ? join(registry.logFile, '..') : app.getPath('logs');
}

if (!app.requestSingleInstanceLock()) {
  app.quit();
} else {
  app.on('second-instance', () => {
    if (win?.isMinimized()) win.restore();
    win?.focus();
  });
  app.whenReady().then(async () => {
    desktop = await startDesktop(desktopOptionsFrom(process.argv, process.env));
    const d = desktop;
    servePreload(ipcMain, {
      gateway: d.gateway,
      // The Build screen's folder: chosen in the system's dialog, read here.
      chooseFolder: async () => {
        const chosen = win
          ? await dialog.showOpenDialog(win, { properties: ['openDirectory'] })
          : await dialog.showOpenDialog({ properties: ['openDirectory'] });
        return chosen.canceled || !chosen.filePaths[0] ? undefined : readFolderFiles(chosen.filePaths[0]);
      },
    });
    buildMenu();
    tray = new Tray(nativeImage.createFromPath(join(findRepoRoot(__dirname), 'assets', 'tray.png')));
    updateTray(d);
    d.supervisor.on('state', () => updateTray(d));
    win = createWindow(d);
  });
  let quitting = false;
  app.on('before-quit', (e) => {
    if (quitting || !desktop) return;
    e.preventDefault();
    quitting = true;
    void desktop.stop().finally(() => app.quit());
  });
  app.on('window-all-closed', () => app.quit());
}
