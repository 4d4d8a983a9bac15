// The one way the renderer reaches anything: the gateway at its own origin (web mode) or at the
// address the preload gives (Electron), always with this launch's token.
import { fixableText } from './fixable-errors';
import { againAfterNetworkFailures } from './network-failures';

/** A folder read by Electron's main process: its name and each file under it. */
export interface ChosenFolder {
  folder: string;
  files: { path: string; data: Uint8Array; mtime: number }[];
}

declare global {
  interface Window {
    svcDesktop?: {
      /** Electron only: where the gateway is and this launch's token, asked of the main process. */
      connection: () => Promise<{ gatewayUrl: string; token: string }>;
      /** Electron only: the system's folder dialog, and the files under the folder chosen. */
      chooseFolder?: () => Promise<ChosenFolder | undefined>;
    };
  }
}

/** Web mode: the page's own origin, and the token its address carried (then kept out of it). */
function fromAddress(): { base: string; token: string } {
  const url = new URL(window.location.href);
  const fromUrl = url.searchParams.get('token');
  if (fromUrl) {
    sessionStorage.setItem('svc-token', fromUrl);
    // Keep the token out of the address bar, history and screenshots.
    url.searchParams.delete('token');
    window.history.replaceState(null, '', url.pathname + url.search + url.hash);
  }
  return { base: window.location.origin, token: fromUrl ?? sessionStorage.getItem('svc-token') ?? '' };
}

/** Where the gateway is and this launch's token; connectGateway() fills it before the first render. */
export const gateway = { base: '', token: '' };

export async function connectGateway(): Promise<void> {
  if (!window.svcDesktop) return void Object.assign(gateway, fromAddress());
  const { gatewayUrl, token } = await window.svcDesktop.connection();
  Object.assign(gateway, { base: gatewayUrl, token });
}

/** An error the user can read: the server's own message, with what we were doing. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly path: string,
  ) {
    super(message);
  }
}

async function readMessage(res: Response): Promise<string> {
  const text = await res.text().catch(() => '');
  try {
    const parsed = JSON.parse(text) as { message?: string; errors?: { code: string; message: string }[] };
    if (parsed.message) return parsed.message;
    // Registry errors: {errors: [{code, message}]}
    if (parsed.errors?.length) return parsed.errors.map((e) => `${e.code}: ${e.message}`).join('; ');
  } catch {}
  return text.trim() || res.statusText || `HTTP ${res.status}`;
}

export async function request(path: string, init: RequestInit = {}): Promise<Response> {
  const headers = new Headers(init.headers);
  headers.set('Authorization', `Bearer ${gateway.token}`);
  const send = () => fetch(gateway.base + path, { ...init, headers });
  const method = (init.method ?? 'GET').toUpperCase();
  let res: Response;
  try {
    // A read may be sent again; a change is not, as it may have been carried out.
    res = await (method === 'GET' || method === 'HEAD'
      ? againAfterNetworkFailures(send, init.signal ?? undefined)
      : send());
  } catch (err) {
    if ((err as Error).name === 'AbortError') throw err;
    throw new ApiError(0, 'The app gateway is not answering (was the app stopped?)', path);
  }
  if (!res.ok && res.status !== 304) throw new ApiError(res.status, await readMessage(res), path);
  return res;
}

export async function getJson<T>(path: string, init?: RequestInit): Promise<T> {
  return (await request(path, init)).json() as Promise<T>;
}

export async function sendJson<T>(method: string, path: string, body?: unknown): Promise<T | undefined> {
  const res = await request(path, {
    method,
    headers: body === undefined ? undefined : { 'Content-Type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  // Podman answers a tag's 201 with a lone newline.
  const text = (await res.text()).trim();
  return text ? (JSON.parse(text) as T) : undefined;
}

/**
 * A request whose body is a file, with upload progress (fetch reports none): load and import.
 * Resolves with the response text; a refusal is an ApiError as for request().
 */
export function upload(
  path: string,
  body: Blob,
  onProgress: (sent: number, total: number) => void,
  signal?: AbortSignal,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', gateway.base + path);
    xhr.setRequestHeader('Authorization', `Bearer ${gateway.token}`);
    xhr.setRequestHeader('Content-Type', 'application/x-tar');
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : body.size);
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve(xhr.responseText);
      void readMessage(new Response(xhr.responseText, { status: xhr.status })).then((m) =>
        reject(new ApiError(xhr.status, m, path)),
      );
    };
    xhr.onerror = () =>
      reject(new ApiError(0, 'The app gateway is not answering (was the app stopped?)', path));
    xhr.onabort = () => reject(new DOMException('aborted', 'AbortError'));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body);
  });
}

/** Newline-delimited JSON already read whole (an upload's answer). */
export function parseJsonLines<T>(text: string): T[] {
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)
    .map((l) => JSON.parse(l) as T);
}

/** For links, EventSource and WebSocket, where a browser cannot send the header. */
export function withToken(path: string): string {
  return `${gateway.base}${path}${path.includes('?') ? '&' : '?'}token=${encodeURIComponent(gateway.token)}`;
}

export function wsUrl(path: string): string {
  return withToken(path).replace(/^http/, 'ws');
}

export function query(params: Record<string, string | number | boolean | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Newline-delimited JSON from a streaming response (events, stats, pull progress). */
export async function* jsonLines<T>(res: Response): AsyncGenerator<T> {
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += value;
    let nl: number;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  if (buf.trim()) yield JSON.parse(buf) as T;
}

export function errorText(err: unknown): string {
  if (err instanceof ApiError) {
    const text = fixableText(err.message);
    return err.status ? `${text} (HTTP ${err.status})` : text;
  }
  return err instanceof Error ? err.message : String(err);
}
