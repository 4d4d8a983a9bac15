// The registry side of the soak's load: images pushed and pulled through svcd, and blobs uploaded
// straight to the registry in chunks, each upload resumed from the offset the registry reports
// when a kill interrupts it. Then the checks: every blob the registry names answers bytes that
// match its digest, and every upload it accepted can be finished.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { sha256, type Digest } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';
import { jsonMessages } from '../../testing/json-messages';
import { startUpload, withDigest } from '../../registry/testing/registry-client';
import { http } from '../../testing/http-client';
import type { SvcdInstance } from '../../testing/svcd-harness';
import { tarOf } from '../../testing/tar-of';
import { LoadLoop, untilAnswered } from './load-loop';

const CHUNK = 16 * 1024;
const BLOB_REPO = 'soak/blobs';
const MAX_RESUMES = 5;

/** An upload's next offset as the registry reports it (GET on the upload), or 404. */
async function uploadOffset(location: string): Promise<number | 'gone' | undefined> {
  const res = await http(location);
  if (res.status === 404) return 'gone';
  if (res.status !== 204) return undefined;
  const m = /^0-(\d+)$/.exec(String(res.headers.range ?? ''));
  // "0-0" says both "empty" and "1 byte" (Distribution's format); these uploads grow by 16 KiB
  // chunks, so it is empty.
  return m && m[1] !== '0' ? Number(m[1]) + 1 : 0;
}

async function patch(location: string, data: Buffer, from: number, to: number): Promise<string> {
  const res = await http(location, {
    method: 'PATCH',
    body: data.subarray(from, to),
    headers: { 'Content-Type': 'application/octet-stream', 'Content-Range': `${from}-${to - 1}` },
  });
  if (res.status !== 202) throw new Error(`patch ${from}-${to - 1}: ${res.status} ${res.text()}`);
  return new URL(res.headers.location as string, location).toString();
}

/** GETs a blob: whether it answers exactly the bytes its digest names. */
export async function blobMatches(base: string, repo: string, digest: Digest): Promise<boolean> {
  const res = await http(`${base}/v2/${repo}/blobs/${digest}`);
  return res.status === 200 && sha256(res.body) === digest;
}

/**
 * Chunked uploads of random blobs. A fault anywhere after the upload was accepted (the POST
 * answered) resumes it: the registry must still know the upload, at an offset no further than
 * what was sent, and the finished blob must match its digest.
 */
export class BlobUploads {
  readonly completed: Digest[] = [];
  readonly problems: string[] = [];
  resumed = 0;
  readonly loop = new LoadLoop('blob uploads', () => this.iteration());

  constructor(
    private readonly base: string,
    private readonly random: () => number,
  ) {}

  private async iteration(): Promise<boolean> {
    const data = randomBytes(CHUNK * (1 + Math.floor(this.random() * 8)));
    const digest = sha256(data);
    let location: string;
    try {
      location = await startUpload(this.base, BLOB_REPO);
    } catch {
      return false; // not accepted: nothing to resume
    }
    let sent = 0;
    let faults = 0;
    for (;;) {
      try {
        while (sent < data.length) {
          const to = Math.min(sent + CHUNK, data.length);
          location = await patch(location, data, sent, to);
          sent = to;
        }
        const put = await http(withDigest(location, digest), { method: 'PUT' });
        if (put.status !== 201) throw new Error(`put: ${put.status} ${put.text()}`);
        break;
      } catch (err) {
        // Each kill costs an upload one fault; more than a few means resuming itself fails.
        if (++faults > MAX_RESUMES) {
          this.problems.push(`upload ${location} not resumable: ${(err as Error).message}`);
          return false;
        }
        const offset = await untilAnswered(`upload ${location}`, () => uploadOffset(location));
        if (offset === 'gone') {
          // A PUT that completed before the kill took the upload with it; anything else is lost.
          if (!(await untilAnswered('blob GET', () => blobMatches(this.base, BLOB_REPO, digest)))) {
            this.problems.push(`upload of ${digest} (${sent} of ${data.length} bytes sent) is gone`);
            return false;
          }
          break;
        }
        // The chunk in flight at the kill may have reached the disk without its answer reaching us.
        const inFlight = Math.min(sent + CHUNK, data.length);
        if (offset > inFlight) this.problems.push(`upload ${location} at ${offset}, ${inFlight} bytes sent`);
        sent = offset;
      }
    }
    if (faults > 0) this.resumed++;
    this.completed.push(digest);
    return faults === 0;
  }

  /**
   * An upload with half its bytes accepted, to be finished after the registry was killed and
   * restarted: from exactly that offset, as a client resuming it would.
   */
  async half(): Promise<() => Promise<string | undefined>> {
    const data = randomBytes(CHUNK * 4);
    const digest = sha256(data);
    const half = data.length / 2;
    let location = await patch(await startUpload(this.base, BLOB_REPO), data, 0, half);
    return async () => {
      const offset = await untilAnswered(`upload ${location}`, () => uploadOffset(location));
      if (offset !== half) return `interrupted upload at ${offset}, ${half} bytes were accepted`;
      location = await patch(location, data, half, data.length);
      const put = await http(withDigest(location, digest), { method: 'PUT' });
      if (put.status !== 201) return `interrupted upload not completed: ${put.status} ${put.text()}`;
      this.resumed++;
      this.completed.push(digest);
      return undefined;
    };
  }
}

/**
 * Through svcd: a one-layer image made on the spot (a file of random bytes), pushed to the
 * registry, removed, pulled back; the pull must give the same image ID.
 */
export class ImageShuttle {
  /** Tags pushed since the last check. */
  readonly pushed: string[] = [];
  pushes = 0;
  pulls = 0;
  private n = 0;
  readonly loop = new LoadLoop('push and pull', () => this.iteration());

  constructor(
    private readonly svcd: SvcdInstance,
    private readonly registryHost: string,
  ) {}

  private async iteration(): Promise<boolean> {
    const tag = String(this.n++);
    const repo = `${this.registryHost}/soak/img`;
    const ref = `${repo}:${tag}`;
    try {
      const rootfs = await tarOf([[{ name: `soak-${tag}`, mode: 0o644 }, randomBytes(64 * 1024)]]);
      const imported = await this.svcd.request('POST', `/images/create?fromSrc=-&repo=${repo}&tag=${tag}`, {
        body: rootfs,
        headers: { 'Content-Type': 'application/x-tar' },
      });
      const id = this.streamResult(imported, 'import').at(-1)?.status;
      this.streamResult(await this.svcd.request('POST', `/images/${repo}/push?tag=${tag}`), 'push');
      this.pushed.push(tag);
      this.pushes++;
      await this.removeImage(ref);
      this.streamResult(
        await this.svcd.request('POST', `/images/create?fromImage=${repo}&tag=${tag}`),
        'pull',
      );
      const inspect = await this.svcd.request('GET', `/images/${ref}/json`);
      if (inspect.status !== 200 || inspect.json<{ Id: string }>().Id !== id) {
        throw new Error(`pulled ${ref}: ${inspect.status} ${inspect.text()}`);
      }
      this.pulls++;
      await this.removeImage(ref);
      return true;
    } catch {
      await untilAnswered(`removal of ${ref}`, async () => {
        const res = await this.svcd.request('DELETE', `/images/${ref}?force=1`);
        if (res.status === 200 || res.status === 404) return true;
        throw new Error(`${res.status} ${res.text()}`);
      });
      return false;
    }
  }

  private streamResult(res: Awaited<ReturnType<SvcdInstance['request']>>, what: string) {
    const messages = res.status === 200 ? jsonMessages(res) : [];
    const failed = messages.find((m) => m.error);
    if (res.status !== 200 || failed)
      throw new Error(`${what}: ${res.status} ${failed?.error ?? res.text()}`);
    return messages;
  }

  private async removeImage(ref: string): Promise<void> {
    const res = await this.svcd.request('DELETE', `/images/${ref}`);
    if (res.status !== 200) throw new Error(`remove ${ref}: ${res.status} ${res.text()}`);
  }

  /** Every pushed tag's manifest and the blobs it names, each matching its digest. */
  async check(base: string): Promise<{ blobs: number; problems: string[] }> {
    const problems: string[] = [];
    let blobs = 0;
    for (const tag of this.pushed.splice(0)) {
      const res = await http(`${base}/v2/soak/img/manifests/${tag}`, {
        headers: { Accept: MediaTypes.dockerManifest },
      });
      if (res.status !== 200) {
        problems.push(`manifest soak/img:${tag}: ${res.status}`);
        continue;
      }
      const m = res.json<{ config: { digest: Digest }; layers: Array<{ digest: Digest }> }>();
      for (const { digest } of [m.config, ...m.layers]) {
        blobs++;
        if (!(await blobMatches(base, 'soak/img', digest)))
          problems.push(`blob ${digest} of soak/img:${tag}`);
      }
    }
    return { blobs, problems };
  }
}

/** Every blob file in the store is complete: its bytes hash to the digest its path names. */
export async function storeProblems(dataDir: string): Promise<{ blobs: number; problems: string[] }> {
  const root = join(dataDir, 'blobs', 'sha256');
  const problems: string[] = [];
  let blobs = 0;
  for (const prefix of await readdir(root).catch(() => [])) {
    for (const hex of await readdir(join(root, prefix))) {
      // A directory without its data file is a move killed between its mkdir and its rename: no
      // blob to anyone (HEAD answers 404), and the next push of it renames into place.
      const data = await readFile(join(root, prefix, hex, 'data')).catch(() => undefined);
      if (!data) continue;
      blobs++;
      if (sha256(data) !== `sha256:${hex}`) problems.push(`blob file sha256:${hex} is partial`);
    }
  }
  return { blobs, problems };
}

/** GETs the blobs completed since the last check. */
export async function uploadedProblems(
  base: string,
  uploads: BlobUploads,
): Promise<{ blobs: number; problems: string[] }> {
  const digests = uploads.completed.splice(0);
  const problems = uploads.problems.splice(0);
  for (const digest of digests) {
    if (!(await blobMatches(base, BLOB_REPO, digest)))
      problems.push(`uploaded blob ${digest} does not match`);
  }
  return { blobs: digests.length, problems };
}
