// The storage driver on an S3 bucket: every path is an object key under the root directory, a
// "directory" is a key prefix. Small files are single PUTs (atomic in S3). Upload data, the only
// file that grows, is a segmented file: an empty base object marked `x-amz-meta-segmented` and
// segment objects `<path>.segments/<start offset>`, each written whole once `chunksize` bytes
// are gathered in memory (S3 needs a length up front). A chunk that leaves the last segment
// under S3's 5 MiB multipart floor is gathered with it: the next append reads that segment back
// and rewrites it longer under the same key, so every segment but the last can be a part of the
// multipart copy that moves the finished upload into place, server-side. A blob that comes
// whole in one request with its digest named skips all that: it is a multipart upload straight
// at its own key, completed once verified (staged), so its bytes are written once, not copied
// again. Nothing touches the local disk, and any replica sees what another wrote.
import { Readable, Writable } from 'node:stream';
import type { FileInfo, RandomReader, StagedFile, StorageDriver } from './driver';
import { readAll, S3Client, S3Error, xmlElement, xmlValue, xmlValues } from './s3-client';

export interface S3DriverOptions {
  /** Key prefix of everything stored, without leading or trailing slash; '' for the bucket's root. */
  rootDirectory: string;
  /** Bytes gathered before a segment is written (≥ 5 MiB). */
  chunkSize: number;
  /** Objects larger than this are copied with a multipart copy (parts of `copyChunkSize`). */
  copyThreshold: number;
  copyChunkSize: number;
  /** Parts of one multipart copy, and deletes, in flight at once. */
  concurrency: number;
}

export const multipartFloor = 5 << 20;
/**
 * Parts of one staged file in flight at once, each a chunk in memory. Measured with 64 MiB
 * pushes to Ceph's gateway: 1, 2 and 3 within a few percent of each other; 2 covers a gateway
 * that takes longer to answer one.
 */
const stagedParallel = 2;
const segmentsSuffix = '.segments';
const segmentedMeta = 'x-amz-meta-segmented';

interface Part {
  key: string;
  start: number;
  size: number;
}

interface Head {
  size: number;
  modifiedMs: number;
  segmented: boolean;
}

/** `fn` over every item, at most `limit` at once; the results in the items' order. */
async function eachLimited<T, R>(
  items: T[],
  limit: number,
  fn: (item: T, i: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    for (let i = next++; i < items.length; i = next++) results[i] = await fn(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function offsetName(offset: number): string {
  return String(offset).padStart(16, '0');
}

/**
 * A Writable handing its bytes to `send` in pieces of `chunkSize` or more (S3 needs a length up
 * front), in order, `parallel` pieces out while the next is gathered: a write that hands over
 * one piece too many waits for the oldest, so at most `parallel + 1` pieces are held. At the end
 * `tail` gets what is left, the next piece's index, and whether anything was written at all.
 */
function piecewiseWriter(
  chunkSize: number,
  parallel: number,
  send: (piece: Buffer, index: number) => Promise<void>,
  tail: (rest: Buffer, index: number, fresh: boolean) => Promise<void>,
  gathered: Buffer[] = [],
): Writable {
  let length = gathered.reduce((n, b) => n + b.length, 0);
  let index = 0;
  const inflight: Promise<void>[] = [];
  let fresh = false;
  const take = (): Buffer => {
    const piece = Buffer.concat(gathered, length);
    gathered = [];
    length = 0;
    return piece;
  };
  const flush = async (): Promise<void> => {
    const sending = send(take(), index++);
    // Seen by a later write or final(); handled here so a destroyed stream does not leave it unheard.
    sending.catch(() => undefined);
    inflight.push(sending);
    while (inflight.length > parallel) await inflight.shift();
  };
  return new Writable({
    write(chunk: Buffer, _encoding, done) {
      gathered.push(chunk);
      length += chunk.length;
      fresh = true;
      if (length < chunkSize) return done();
      flush().then(() => done(), done);
    },
    final(done) {
      Promise.all(inflight)
        .then(() => tail(take(), index, fresh))
        .then(() => done(), done);
    },
  });
}

export class S3Driver implements StorageDriver {
  private readonly prefix: string;
  /** This process's multipart uploads (staged files, copies), from their creation to their end. */
  private readonly underWay = new Set<string>();

  constructor(
    readonly s3: S3Client,
    readonly options: S3DriverOptions,
  ) {
    this.prefix = options.rootDirectory ? `${options.rootDirectory}/` : '';
  }

  private key(path: string): string {
    return this.prefix + path;
  }

  async getContent(path: string): Promise<Buffer | undefined> {
    const res = await this.s3.send({ method: 'GET', key: this.key(path), accept: [404] });
    const body = await readAll(res);
    return res.statusCode === 404 ? undefined : body;
  }

  async putContent(path: string, content: string | Uint8Array): Promise<void> {
    // A PUT is atomic and, once answered, durable: the durability option has nothing to add.
    await this.put(this.key(path), Buffer.from(content));
  }

  private async put(key: string, body: Buffer, headers: Record<string, string> = {}): Promise<void> {
    const storageClass = this.s3.options.storageClass;
    if (storageClass) headers['x-amz-storage-class'] = storageClass;
    const res = await this.s3.send({ method: 'PUT', key, body, headers });
    res.resume();
  }

  private async head(key: string): Promise<Head | undefined> {
    const res = await this.s3.send({ method: 'HEAD', key, accept: [404] });
    res.resume();
    if (res.statusCode === 404) return undefined;
    return {
      size: Number(res.headers['content-length'] ?? 0),
      modifiedMs: Date.parse(String(res.headers['last-modified'])),
      segmented: res.headers[segmentedMeta] === '1',
    };
  }

  /** Every key under a prefix (no delimiter), with sizes, following continuation tokens. */
  private async *listKeys(
    prefix: string,
    delimiter?: string,
  ): AsyncGenerator<{ key?: string; size?: number; dir?: string }> {
    let token: string | undefined;
    do {
      const query: Record<string, string> = { 'list-type': '2', prefix };
      if (delimiter) query.delimiter = delimiter;
      if (token) query['continuation-token'] = token;
      const { body } = await this.s3.call({ method: 'GET', query });
      for (const block of xmlValues(body, 'Contents'))
        yield { key: xmlValue(block, 'Key'), size: Number(xmlValue(block, 'Size')) };
      for (const block of xmlValues(body, 'CommonPrefixes')) yield { dir: xmlValue(block, 'Prefix') };
      token = xmlValue(body, 'IsTruncated') === 'true' ? xmlValue(body, 'NextContinuationToken') : undefined;
    } while (token);
  }

  /** The parts of a stored file in order: the object itself, or a segmented file's pieces. */
  private async parts(path: string, head: Head): Promise<Part[]> {
    const key = this.key(path);
    const parts: Part[] = head.size > 0 ? [{ key, start: 0, size: head.size }] : [];
    if (!head.segmented) return parts;
    for await (const entry of this.listKeys(`${key}${segmentsSuffix}/`)) {
      if (!entry.key) continue;
      parts.push({
        key: entry.key,
        start: Number(entry.key.slice(entry.key.lastIndexOf('/') + 1)),
        size: entry.size ?? 0,
      });
    }
    // Keys are zero-padded offsets, so the listing's order is the file's order.
    return parts;
  }

  private static size(parts: Part[]): number {
    const last = parts[parts.length - 1];
    return last ? last.start + last.size : 0;
  }

  /** The part holding all of [start, end], when one does. */
  private static onePart(parts: Part[], start: number, end: number): Part | undefined {
    const within = parts.filter((p) => p.start <= end && start < p.start + p.size);
    return within.length === 1 ? within[0] : undefined;
  }

  async stat(path: string): Promise<FileInfo | undefined> {
    const head = await this.head(this.key(path));
    if (head) {
      const size = head.segmented ? S3Driver.size(await this.parts(path, head)) : head.size;
      return { size, modifiedMs: head.modifiedMs, isDirectory: false };
    }
    const { body } = await this.s3.call({
      method: 'GET',
      query: { 'list-type': '2', prefix: `${this.key(path)}/`, 'max-keys': '1' },
    });
    return xmlValue(body, 'KeyCount') !== '0' && xmlValues(body, 'Key').length
      ? { size: 0, modifiedMs: 0, isDirectory: true }
      : undefined;
  }

  async list(path: string): Promise<string[]> {
    const prefix = `${this.key(path)}/`;
    const names: string[] = [];
    for await (const entry of this.listKeys(prefix, '/')) {
      const name = (entry.key ?? entry.dir ?? '').slice(prefix.length).replace(/\/$/, '');
      if (name && !name.endsWith(segmentsSuffix)) names.push(name);
    }
    return names;
  }

  reader(path: string, range?: { start: number; end: number }): Readable {
    return Readable.from(this.read(path, range), { objectMode: false });
  }

  private async *read(path: string, range?: { start: number; end: number }): AsyncGenerator<Buffer> {
    const head = await this.head(this.key(path));
    if (!head) throw Object.assign(new Error(`${path}: not found`), { code: 'ENOENT' });
    const parts = await this.parts(path, head);
    yield* this.readParts(parts, range?.start ?? 0, range?.end ?? S3Driver.size(parts) - 1);
  }

  /** Bytes [start, end] of a file of these parts: one ranged GET per part, streamed. */
  private async *readParts(parts: Part[], start: number, end: number): AsyncGenerator<Buffer> {
    for (const part of parts) {
      const from = Math.max(start, part.start);
      const to = Math.min(end, part.start + part.size - 1);
      if (from > to) continue;
      const res = await this.s3.send({
        method: 'GET',
        key: part.key,
        headers: { Range: `bytes=${from - part.start}-${to - part.start}` },
      });
      yield* res as AsyncIterable<Buffer>;
    }
  }

  async open(path: string): Promise<RandomReader | undefined> {
    const head = await this.head(this.key(path));
    if (!head) return undefined;
    const parts = await this.parts(path, head);
    return {
      size: S3Driver.size(parts),
      read: async (into, position) => {
        let filled = 0;
        for (const part of parts) {
          const at = position + filled;
          if (filled === into.length || at >= part.start + part.size || at < part.start) continue;
          const length = Math.min(into.length - filled, part.start + part.size - at);
          const res = await this.s3.send({
            method: 'GET',
            key: part.key,
            headers: { Range: `bytes=${at - part.start}-${at - part.start + length - 1}` },
          });
          for await (const chunk of res as AsyncIterable<Buffer>) {
            chunk.copy(into, filled);
            filled += chunk.length;
          }
        }
        return filled;
      },
      stream: async (start, end) => {
        const part = S3Driver.onePart(parts, start, end);
        // Within one object (every committed blob): the gateway's answer itself, with no stream
        // between it and the client.
        if (!part) return Readable.from(this.readParts(parts, start, end), { objectMode: false });
        return this.s3.send({
          method: 'GET',
          key: part.key,
          headers: { Range: `bytes=${start - part.start}-${end - part.start}` },
        });
      },
      socketBody: async (start, end) => {
        const part = S3Driver.onePart(parts, start, end);
        return part && this.s3.bodySocket(part.key, start - part.start, end - part.start);
      },
      close: async () => undefined,
    };
  }

  /** A pre-signed URL for clients to GET a stored file from the bucket directly. */
  async redirectUrl(path: string, expiresSeconds: number): Promise<string> {
    return this.s3.presignedGet(this.key(path), expiresSeconds);
  }

  async appender(path: string): Promise<Writable> {
    const key = this.key(path);
    let head = await this.head(key);
    if (!head?.segmented) {
      // A plain file turns segmented: its content (if any) becomes the first segment.
      if (head && head.size > 0) await this.copy(key, `${key}${segmentsSuffix}/${offsetName(0)}`, head.size);
      await this.put(key, Buffer.alloc(0), { [segmentedMeta]: '1' });
      head = { size: 0, modifiedMs: Date.now(), segmented: true };
    }
    const parts = await this.parts(path, head);
    const last = parts[parts.length - 1];
    let start = S3Driver.size(parts);
    let gathered: Buffer[] = [];
    // A last segment under the multipart floor is gathered with the bytes that follow it.
    if (last && last.size < multipartFloor) {
      const res = await this.s3.send({ method: 'GET', key: last.key });
      gathered = [await readAll(res)];
      start = last.start;
    }
    // The name is taken when the piece is handed over, in order: segments go one at a time, so
    // a reader never sees a later one without those before it.
    const putSegment = (body: Buffer): Promise<void> => {
      const segment = `${key}${segmentsSuffix}/${offsetName(start)}`;
      start += body.length;
      return this.put(segment, body);
    };
    // Nothing new: the gathered tail is already stored as it is.
    return piecewiseWriter(
      this.options.chunkSize,
      1,
      putSegment,
      (rest, _index, fresh) => (fresh && rest.length > 0 ? putSegment(rest) : Promise.resolve()),
      gathered,
    );
  }

  /**
   * A multipart upload at the path, so nothing shows there before the commit; its parts are
   * sent as they fill. A file smaller than one part is one PUT at the commit instead.
   */
  async stagedWriter(path: string): Promise<StagedFile> {
    const key = this.key(path);
    let upload: Promise<string> | undefined;
    const etags: string[] = [];
    let small: Buffer | undefined;
    const putPart = async (body: Buffer, index: number): Promise<void> => {
      const uploadId = await (upload ??= this.createMultipart(key));
      const res = await this.s3.send({
        method: 'PUT',
        key,
        query: { partNumber: String(index + 1), uploadId },
        body,
      });
      res.resume();
      etags[index] = String(res.headers.etag ?? '');
    };
    const stream = piecewiseWriter(this.options.chunkSize, stagedParallel, putPart, async (rest, index) => {
      if (!upload) small = rest;
      else if (rest.length > 0) await putPart(rest, index);
    });
    return {
      stream,
      commit: async () => {
        if (upload) await this.completeMultipart(key, await upload, etags);
        else await this.put(key, small ?? Buffer.alloc(0));
      },
      abort: async () => {
        if (upload) await this.abortMultipart(key, await upload);
      },
    };
  }

  /** The multipart uploads under the root directory: staged files, and copies under way. */
  async *stagedUploads(): AsyncGenerator<{ key: string; uploadId: string; initiatedMs: number }> {
    let marker: Record<string, string> = {};
    for (;;) {
      const { body } = await this.s3.call({
        method: 'GET',
        query: { uploads: '', prefix: this.prefix, ...marker },
      });
      for (const block of xmlValues(body, 'Upload')) {
        const key = xmlValue(block, 'Key');
        const uploadId = xmlValue(block, 'UploadId');
        if (key && uploadId)
          yield { key, uploadId, initiatedMs: Date.parse(xmlValue(block, 'Initiated') ?? '') };
      }
      if (xmlValue(body, 'IsTruncated') !== 'true') return;
      marker = {
        'key-marker': xmlValue(body, 'NextKeyMarker') ?? '',
        'upload-id-marker': xmlValue(body, 'NextUploadIdMarker') ?? '',
      };
    }
  }

  /**
   * Aborts the multipart uploads begun before `before` but this process's own still under way:
   * an expiry shorter than a slow request must not cut it.
   */
  async purgeStaged(before: number): Promise<number> {
    let purged = 0;
    for await (const upload of this.stagedUploads()) {
      if (!(upload.initiatedMs < before) || this.underWay.has(upload.uploadId)) continue;
      await this.abortMultipart(upload.key, upload.uploadId);
      purged++;
    }
    return purged;
  }

  /** A server-side copy of one object; a multipart copy above the threshold. */
  private async copy(from: string, to: string, size: number): Promise<void> {
    if (size <= this.options.copyThreshold) {
      await this.s3.call({ method: 'PUT', key: to, headers: { 'x-amz-copy-source': this.copySource(from) } });
      return;
    }
    const pieces: Part[] = [];
    for (let start = 0; start < size; start += this.options.copyChunkSize)
      pieces.push({ key: from, start, size: Math.min(this.options.copyChunkSize, size - start) });
    await this.multipartCopy(to, pieces);
  }

  private copySource(key: string): string {
    return `/${this.s3.options.bucket}/${key.split('/').map(encodeURIComponent).join('/')}`;
  }

  private async createMultipart(key: string): Promise<string> {
    const init = await this.s3.call({ method: 'POST', key, query: { uploads: '' } });
    const uploadId = xmlValue(init.body, 'UploadId');
    if (!uploadId) throw new Error(`S3: no UploadId creating a multipart upload of ${key}`);
    this.underWay.add(uploadId);
    return uploadId;
  }

  private async completeMultipart(key: string, uploadId: string, etags: string[]): Promise<void> {
    const parts = etags
      .map((etag, i) => `<Part>${xmlElement('PartNumber', String(i + 1))}${xmlElement('ETag', etag)}</Part>`)
      .join('');
    const done = await this.s3.call({
      method: 'POST',
      key,
      query: { uploadId },
      body: Buffer.from(`<CompleteMultipartUpload>${parts}</CompleteMultipartUpload>`),
    });
    // S3 may answer 200 with an error in the body.
    if (xmlValue(done.body, 'Code'))
      throw new S3Error(200, xmlValue(done.body, 'Code')!, `S3 complete ${key}: ${done.body}`);
    this.underWay.delete(uploadId);
  }

  private async abortMultipart(key: string, uploadId: string): Promise<void> {
    await this.s3.call({ method: 'DELETE', key, query: { uploadId }, accept: [404] });
    this.underWay.delete(uploadId);
  }

  /** Assembles `to` from byte ranges of other objects, each ≥ 5 MiB but the last. */
  private async multipartCopy(to: string, pieces: Part[]): Promise<void> {
    const uploadId = await this.createMultipart(to);
    try {
      // Server-side copies, several at once: the gateway does the work, the registry only waits.
      const etags = await eachLimited(pieces, this.options.concurrency, async (piece, i) => {
        const res = await this.s3.call({
          method: 'PUT',
          key: to,
          query: { partNumber: String(i + 1), uploadId },
          headers: {
            'x-amz-copy-source': this.copySource(piece.key),
            'x-amz-copy-source-range': `bytes=${piece.start}-${piece.start + piece.size - 1}`,
          },
        });
        return xmlValue(res.body, 'ETag') ?? '';
      });
      await this.completeMultipart(to, uploadId, etags);
    } catch (err) {
      await this.abortMultipart(to, uploadId).catch(() => undefined);
      throw err;
    }
  }

  async move(from: string, to: string): Promise<void> {
    const head = await this.head(this.key(from));
    if (!head) throw Object.assign(new Error(`${from}: not found`), { code: 'ENOENT' });
    const parts = await this.parts(from, head);
    const target = this.key(to);
    if (parts.length === 0) await this.put(target, Buffer.alloc(0));
    else if (parts.length === 1 && parts[0].start === 0) await this.copy(parts[0].key, target, parts[0].size);
    else
      await this.multipartCopy(
        target,
        parts.map((p) => ({ key: p.key, start: 0, size: p.size })),
      );
    await this.delete(from);
  }

  async delete(path: string): Promise<void> {
    const key = this.key(path);
    const keys = [key];
    for (const prefix of [`${key}/`, `${key}${segmentsSuffix}/`])
      for await (const entry of this.listKeys(prefix)) if (entry.key) keys.push(entry.key);
    // Segments first, then the files they belong to, then the base object, each group at once:
    // a file's base object is what names it, so a delete cut short leaves no segment unnamed.
    const remove = async (k: string): Promise<void> => {
      const res = await this.s3.send({ method: 'DELETE', key: k, accept: [404] });
      res.resume();
    };
    const children = keys.slice(1);
    const segments = children.filter((k) => k.includes(`${segmentsSuffix}/`));
    await eachLimited(segments, this.options.concurrency, remove);
    await eachLimited(
      children.filter((k) => !k.includes(`${segmentsSuffix}/`)),
      this.options.concurrency,
      remove,
    );
    await remove(key);
  }

  async touch(path: string): Promise<void> {
    const key = this.key(path);
    const head = await this.head(key);
    if (!head) return;
    // A copy onto itself with replaced metadata is how S3 renews Last-Modified.
    await this.s3.call({
      method: 'PUT',
      key,
      headers: {
        'x-amz-copy-source': this.copySource(key),
        'x-amz-metadata-directive': 'REPLACE',
        ...(head.segmented ? { [segmentedMeta]: '1' } : {}),
      },
    });
  }
}
