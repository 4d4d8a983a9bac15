// Downloads for the builder: ADD's remote URLs (a file saved as Docker saves it: mode 0600, its
// time from Last-Modified, its name from the URL) and remote build contexts.
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { chmod, lstat, mkdir, rm, utimes } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream } from 'node:stream/web';
import { InvalidParameterError } from '../../api/errors';
import type { CopySource } from './copy-files';

export async function download(
  url: string,
  signal: AbortSignal,
): Promise<{ body: Readable; response: Response }> {
  let response: Response;
  try {
    response = await fetch(url, { signal, redirect: 'follow' });
  } catch (err) {
    signal.throwIfAborted();
    throw new InvalidParameterError(`error downloading ${url}: ${(err as Error).message}`);
  }
  if (!response.ok || !response.body) {
    throw new InvalidParameterError(
      `failed to GET ${url} with status ${response.status} ${response.statusText}`,
    );
  }
  return { body: Readable.fromWeb(response.body as ReadableStream), response };
}

/** The file name a download is saved under: the URL path's last segment. */
function fileName(url: string): string {
  const name = posix.basename(new URL(url).pathname);
  if (!name || name === '/' || name === '..' || name === '.') {
    throw new InvalidParameterError(`cannot determine filename from url: ${url}`);
  }
  return name;
}

export async function fetchRemoteFile(
  url: string,
  besides: string,
  signal: AbortSignal,
): Promise<{ source: CopySource; remove: () => Promise<void> }> {
  const name = fileName(url);
  const root = `${besides}.download-${randomBytes(6).toString('hex')}`;
  const remove = () => rm(root, { recursive: true, force: true });
  try {
    await mkdir(root, { mode: 0o700 });
    const { body, response } = await download(url, signal);
    const path = join(root, name);
    await pipeline(body, createWriteStream(path, { mode: 0o600 }), { signal });
    await chmod(path, 0o600);
    const modified = Date.parse(response.headers.get('last-modified') ?? '');
    if (!Number.isNaN(modified)) await utimes(path, new Date(modified), new Date(modified));
    return { source: { root, path: name, stats: await lstat(path) }, remove };
  } catch (err) {
    await remove();
    throw err;
  }
}
