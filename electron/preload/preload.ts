// The whole surface the page gets from Electron: where the gateway is and its token, and the
// system's folder dialog for the Build screen. Both are asked of the main process
// (electron/main/preload-api.ts) with invoke, so the page never blocks on the main process.
// Sandboxed, so it imports nothing of ours: the channel names are written here and there, and
// preload.test.ts checks they meet.
import { contextBridge, ipcRenderer } from 'electron';

contextBridge.exposeInMainWorld(
  'svcDesktop',
  Object.freeze({
    connection: () => ipcRenderer.invoke('svc:gateway'),
    chooseFolder: () => ipcRenderer.invoke('svc:choose-folder'),
  }),
);
