// The whole surface the page gets from Electron: where the gateway is, its token, and the system's
// folder dialog for the Build screen.
import { contextBridge, ipcRenderer } from 'electron';

const { gatewayUrl, token } = ipcRenderer.sendSync('svc:gateway') as { gatewayUrl: string; token: string };
contextBridge.exposeInMainWorld(
  'svcDesktop',
  Object.freeze({ gatewayUrl, token, chooseFolder: () => ipcRenderer.invoke('svc:choose-folder') }),
);
