// The main process's side of the preload (electron/preload/preload.ts): the two things the page
// may ask, each answered with ipcMain.handle (the preload invokes, never sends synchronously).
import type { FolderFiles } from './folder-files';

/** What ipcMain offers that this needs (a stand-in in tests, where Electron cannot run). */
export interface IpcHandlers {
  handle(channel: string, listener: (event: unknown) => unknown): void;
}

export interface PreloadParts {
  gateway: { url: string; token: string };
  /** The system's folder dialog and the files under the folder chosen; undefined if cancelled. */
  chooseFolder(): Promise<FolderFiles | undefined>;
}

export function servePreload(ipc: IpcHandlers, parts: PreloadParts): void {
  // Exactly these two values, nothing more crosses into the page.
  ipc.handle('svc:gateway', () => ({ gatewayUrl: parts.gateway.url, token: parts.gateway.token }));
  ipc.handle('svc:choose-folder', () => parts.chooseFolder());
}
