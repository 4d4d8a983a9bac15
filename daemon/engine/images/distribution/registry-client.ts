// The Registry API V2 operations pull and push are made of, for one registry host: the reads and
// manifest writes the desktop shares (RegistryCalls, which verifies every manifest and blob read),
// and login, search, mounts and uploads. Requests wait for a first /v2/ ping, as Docker's do.
import { Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import { InvalidParameterError, SystemError, UnauthorizedError, UnavailableError } from '../../../api/errors';
import type { HttpResponse } from '../../../lib/http-client';
import { isLoopbackHost } from '../../../lib/loopback-host';
import { ByteReader } from '../../../lib/tar/byte-reader';
import { registryHost, type Reference } from '../../shared/reference';
import { parseManifest, type ParsedManifest } from './manifest';
import {
  formatRegistryErrors,
  readRegistryErrors,
  registryError,
} from '../../../lib/registry-wire/registry-errors';
import { RegistryTransport, type RequestOptions } from '../../../lib/registry-wire/registry-transport';
import {
  namedDigest,
  RegistryCalls,
  type BlobReadOptions,
  type ManifestBody,
} from '../../../lib/registry-wire/registry-calls';
import { repositoryScope } from '../../../lib/registry-wire/scopes';
import { credentials, type AuthConfig } from './auth-config';
import type { BlobSink } from './types';
import type { Descriptor } from '../../../api/manifest-types';
import { DigestMismatchError, VerifyingStream } from '../../../lib/registry-wire/verifying-stream';
import { maxManifestBytes } from '../../../lib/manifest-body';

export interface FetchedManifest extends ManifestBody {
  parsed: ParsedManifest;
}

export interface UploadOptions {
  /** Upload URL from a mount fallback (202), instead of starting a new session. */
  location?: string;
  /** Send PATCH chunks of this many bytes, then an empty PUT; monolithic PUT when absent. */
  chunkSize?: number;
  onBytes?: (bytes: number) => void;
  signal?: AbortSignal;
}

export interface TransportOptions {
  /** `host[:port]` as in the reference's domain (docker.io already mapped to its API host). */
  host: string;
  auth?: AuthConfig;
  /** Hosts (`host:port`, or CIDR-less IPs) spoken to over plain HTTP besides loopback. */
  insecureRegistries?: string[];
  userAgent?: string;
}

const pullScope = (repo: string) => repositoryScope(repo, 'pull');
const pushScope = (repo: string) => repositoryScope(repo, 'pull,push');

export class RegistryClient extends RegistryCalls {
  readonly transport: RegistryTransport;

  private pinged = false;

  constructor(readonly options: TransportOptions) {
    super();
    const { host, auth = {} } = options;
    const hostname = host.replace(/:\d+$/, '');
    const insecure =
      isLoopbackHost(host) || (options.insecureRegistries ?? []).some((h) => h === host || h === hostname);
    this.transport = new RegistryTransport({
      origin: `${insecure ? 'http' : 'https'}://${host}`,
      credentials: {
        ...credentials(auth),
        identityToken: auth.identitytoken,
        registryToken: auth.registrytoken,
      },
      userAgent: options.userAgent ?? 'svcd',
      clientId: 'svcd',
    });
  }

  /** A client for the registry a reference names (docker.io → registry-1.docker.io). */
  static forReference(ref: Reference, options: Omit<TransportOptions, 'host'> = {}): RegistryClient {
    return new RegistryClient({ ...options, host: registryHost(ref.domain) });
  }

  override get host(): string {
    return this.options.host;
  }

  /** The manifest, verified (RegistryCalls) and parsed. */
  override async getManifest(
    repo: string,
    reference: string,
    signal?: AbortSignal,
  ): Promise<FetchedManifest> {
    const fetched = await super.getManifest(repo, reference, signal);
    return { ...fetched, parsed: parseManifest(fetched.bytes, fetched.descriptor.mediaType) };
  }

  /** Checks the credentials against the registry (POST /auth): throws UnauthorizedError. */
  async checkAuth(signal?: AbortSignal): Promise<void> {
    const res = await this.send('/v2/', { scopes: [], signal });
    res.discard();
    if (!res.ok) throw await registryError(res, `login to ${this.host}`);
  }

  /** The V1 search endpoint's results, or undefined when the registry has none (V2-only). */
  async searchV1(term: string, limit: number, signal?: AbortSignal): Promise<unknown[] | undefined> {
    const query = new URLSearchParams({ q: term, n: String(limit) });
    const res = await this.send(`/v1/search?${query}`, { scopes: [], signal });
    if (res.status === 404 || res.status === 405) {
      res.discard();
      return undefined;
    }
    if (!res.ok) throw await registryError(res, `search of ${this.host}`);
    const body = (await res.json()) as { results?: unknown[] };
    return Array.isArray(body.results) ? body.results : [];
  }

  /**
   * Fetches a blob into the sink: the sink sees a stream that fails on any mismatch (or, without
   * `checkDigest`, on a wrong size only, the sink then checking the digest as it commits).
   */
  async fetchBlob(
    repo: string,
    desc: Descriptor,
    sink: BlobSink,
    options: BlobReadOptions = {},
  ): Promise<void> {
    const stream = await this.openBlob(repo, desc, options);
    const ended = finished(stream);
    ended.catch(() => {});
    try {
      await sink.write(desc, stream, options.signal);
    } catch (err) {
      stream.destroy();
      throw err;
    }
    // A sink that returned without reading to a clean end must not pass for verified content,
    // unless it stopped because the blob got there meanwhile (a concurrent pull of it committed).
    try {
      await ended;
    } catch (err) {
      if (stream.errored || !(await sink.has(desc.digest))) throw err;
    }
  }

  /** Reads a small blob (an image config) into memory, verified. */
  async readBlob(repo: string, desc: Descriptor, signal?: AbortSignal): Promise<Buffer> {
    const stream = await this.openBlob(repo, desc, { signal });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream) {
      size += chunk.length;
      if (size > maxManifestBytes) {
        stream.destroy();
        throw new InvalidParameterError(`blob ${desc.digest} is larger than ${maxManifestBytes} bytes`);
      }
      chunks.push(chunk);
    }
    return Buffer.concat(chunks);
  }

  /**
   * Cross-repository mount. `mounted` when the registry linked the blob; otherwise the upload
   * session it opened instead (a 202 fallback), to upload into.
   */
  async mountBlob(
    repo: string,
    digest: string,
    from: string,
    signal?: AbortSignal,
  ): Promise<{ mounted: true } | { mounted: false; location: string }> {
    const query = new URLSearchParams({ mount: digest, from });
    const res = await this.send(`/v2/${repo}/blobs/uploads/?${query}`, {
      method: 'POST',
      headers: { 'Content-Length': '0' },
      scopes: [pushScope(repo), pullScope(from)],
      signal,
    });
    res.discard();
    if (res.status === 201) return { mounted: true };
    if (res.status === 202) return { mounted: false, location: this.location(res) };
    throw await registryError(res, `mount of ${digest} from ${from} into ${this.host}/${repo}`);
  }

  async startUpload(repo: string, signal?: AbortSignal): Promise<string> {
    const res = await this.send(`/v2/${repo}/blobs/uploads/`, {
      method: 'POST',
      headers: { 'Content-Length': '0' },
      scopes: [pushScope(repo)],
      signal,
    });
    res.discard();
    if (res.status !== 202) throw await registryError(res, `upload to ${this.host}/${repo}`);
    return this.location(res);
  }

  /** Uploads a blob (monolithic PUT, or PATCH chunks then PUT) and checks the registry's digest. */
  async uploadBlob(
    repo: string,
    desc: Descriptor,
    stream: Readable,
    options: UploadOptions = {},
  ): Promise<void> {
    const { signal } = options;
    let location = options.location ?? (await this.startUpload(repo, signal));
    const verifier = new VerifyingStream({ digest: desc.digest, size: desc.size }, options.onBytes);
    stream.on('error', (err) => verifier.destroy(err));
    const data = stream.pipe(verifier);
    const scopes = [pushScope(repo)];
    let finalBody: Readable | undefined = data;
    if (options.chunkSize && options.chunkSize > 0) {
      const reader = new ByteReader(data);
      let offset = 0;
      while (offset < desc.size) {
        const length = Math.min(options.chunkSize, desc.size - offset);
        const res = await this.sending(verifier, location, {
          method: 'PATCH',
          headers: {
            'Content-Type': 'application/octet-stream',
            'Content-Length': String(length),
            'Content-Range': `${offset}-${offset + length - 1}`,
          },
          body: Readable.from(slice(reader, length)),
          scopes,
          signal,
        });
        res.discard();
        if (res.status !== 202)
          throw await registryError(res, `upload of ${desc.digest} to ${this.host}/${repo}`);
        location = this.location(res);
        offset += length;
      }
      // The verifier only reports a mismatch once it has seen the end of the stream.
      if ((await reader.readSome(1)) !== null)
        throw new InvalidParameterError(`blob ${desc.digest} is longer than ${desc.size} bytes`);
      finalBody = undefined;
    }
    const url = this.transport.url(location);
    url.searchParams.set('digest', desc.digest);
    const res = await this.sending(verifier, url.toString(), {
      method: 'PUT',
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Length': String(finalBody ? desc.size : 0),
      },
      body: finalBody ?? Buffer.alloc(0),
      scopes,
      signal,
    });
    res.discard();
    if (verifier.errored) throw verifier.errored;
    if (res.status !== 201)
      throw await registryError(res, `upload of ${desc.digest} to ${this.host}/${repo}`);
    const canonical = namedDigest(res);
    if (canonical && canonical !== desc.digest) throw new DigestMismatchError(desc.digest, canonical);
  }

  /** A request with the credentials the registry asked for: any answer but 401, which throws. */
  protected override async send(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse> {
    if (!this.pinged) {
      const ping = await this.transport.ping(options.signal);
      if (ping.status >= 500)
        throw new UnavailableError(`registry ${this.host} answered ${ping.status} to /v2/`);
      this.pinged = true;
    }
    const res = await this.transport.fetch(pathOrUrl, options);
    if (res.status === 401) throw new UnauthorizedError(formatRegistryErrors(await readRegistryErrors(res)));
    return res;
  }

  /** A request whose body runs through `verifier`: a mismatch is reported as such, not as a network error. */
  private async sending(
    verifier: VerifyingStream,
    url: string,
    options: RequestOptions,
  ): Promise<HttpResponse> {
    try {
      return await this.send(url, options);
    } catch (err) {
      throw verifier.errored ?? err;
    }
  }

  private location(res: HttpResponse): string {
    const location = res.headers.get('location');
    if (!location) throw new SystemError(`registry ${this.host} answered ${res.status} without a Location`);
    return this.transport.url(location).toString();
  }
}

async function* slice(reader: ByteReader, length: number): AsyncGenerator<Buffer> {
  let left = length;
  while (left > 0) {
    const chunk = await reader.readSome(Math.min(left, 1 << 20));
    if (!chunk) throw new InvalidParameterError('blob ended before its declared size');
    left -= chunk.length;
    yield chunk;
  }
}
