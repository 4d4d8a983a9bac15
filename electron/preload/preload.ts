// The whole surface the page gets from Electron: where the gateway is and its token.
import { contextBridge, ipcRenderer } from 'electron';

const { gatewayUrl, token } = ipcRenderer.sendSync('svc:gateway') as { gatewayUrl: string; token: string };
contextBridge.exposeInMainWorld('svcDesktop', Object.freeze({ gatewayUrl, token }));
