// The Registry API V2 reads and manifest writes, shared by the engine's pull and push and the
// desktop's registry browser: the paths (repository names encoded), the Accept list, the
// Docker-Content-Digest a registry names, and the checks of what it sends. A manifest is refused
// unless its bytes have the digest asked for or the one the registry named; a blob streams through
// a VerifyingStream. How a request is sent (credentials, pings, errors of the connection) is the
// subclass's.
import type { Readable } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';
import type { Descriptor } from '../../api/manifest-types';
import type { CatalogResponse } from '../../api/registry-types';
import type { HttpResponse } from '../http-client';
import {
  invalidManifest,
  manifestDigest,
  manifestMediaType,
  manifestObject,
  maxManifestBytes,
} from '../manifest-body';
import { manifestAcceptTypes } from '../media-types';
import { registryError } from './registry-errors';
import type { RequestOptions } from './registry-transport';
import { catalogScope, repositoryScope } from './scopes';
import { DigestMismatchError, VerifyingStream } from './verifying-stream';

export type ManifestDescriptor = Pick<Descriptor, 'mediaType' | 'digest' | 'size'>;

export interface ManifestBody {
  /** The digest is the bytes' own, checked against the one asked for or named by the registry. */
  descriptor: ManifestDescriptor;
  bytes: Buffer;
  /** The body as JSON. */
  doc: Record<string, unknown>;
}

export interface BlobReadOptions {
  signal?: AbortSignal;
  onBytes?: (n: number) => void;
  /** False to count the bytes without hashing them; true when absent. */
  checkDigest?: boolean;
}

/** A manifest's bytes whose digest is not the one asked for or named. */
export class ManifestDigestError extends DigestMismatchError {
  constructor(what: string, expected: string, actual: string) {
    super(expected, actual);
    this.message = `${what}: the registry sent a manifest whose digest is ${actual}, not ${expected}`;
  }
}

const pullScope = (repo: string) => repositoryScope(repo, 'pull');
const pushScope = (repo: string) => repositoryScope(repo, 'pull,push');

/** `/v2/<name>/<kind>/<reference>`, each part of the name and the reference percent-encoded (`:` kept). */
export function registryPath(repo: string, kind: 'manifests' | 'blobs', reference: string): string {
  return `/v2/${encodedName(repo)}/${kind}/${encodeURIComponent(reference).replace(/%3A/gi, ':')}`;
}

const encodedName = (repo: string) => repo.split('/').map(encodeURIComponent).join('/');

/** The digest a registry names in an answer. */
export function namedDigest(res: HttpResponse): string | undefined {
  return res.headers.get('docker-content-digest') ?? res.headers.get('svc-content-digest') ?? undefined;
}

const nextPage = (res: HttpResponse) =>
  /<([^>]+)>\s*;\s*rel="?next"?/.exec(res.headers.get('link') ?? '')?.[1];

export abstract class RegistryCalls {
  /** `host[:port]`, for messages. */
  abstract get host(): string;

  /** Sends one request with the credentials its scopes need. */
  protected abstract send(pathOrUrl: string, options: RequestOptions): Promise<HttpResponse>;

  /** GET a manifest by tag or digest, its bytes checked against the digest asked for or named. */
  async getManifest(repo: string, reference: string, signal?: AbortSignal): Promise<ManifestBody> {
    const what = `manifest for ${this.host}/${repo}:${reference}`;
    const res = await this.send(registryPath(repo, 'manifests', reference), {
      headers: { Accept: manifestAcceptTypes.join(', ') },
      scopes: [pullScope(repo)],
      signal,
    });
    if (!res.ok) throw await registryError(res, what);
    const bytes = await readLimited(res, maxManifestBytes, `manifest ${repo}:${reference}`);
    const doc = manifestObject(bytes);
    if (!doc) throw invalidManifest('not a JSON object');
    const mediaType = manifestMediaType(doc, res.headers.get('content-type'));
    const expected = reference.includes(':') ? reference : namedDigest(res);
    const digest = manifestDigest(bytes, mediaType, expected ?? 'sha256:');
    if (expected && digest !== expected) throw new ManifestDigestError(what, expected, digest);
    return { descriptor: { mediaType, digest, size: bytes.length }, bytes, doc };
  }

  /** HEAD a manifest: its descriptor, or undefined when the registry does not have it (or names no digest). */
  async headManifest(
    repo: string,
    reference: string,
    signal?: AbortSignal,
  ): Promise<ManifestDescriptor | undefined> {
    const res = await this.send(registryPath(repo, 'manifests', reference), {
      method: 'HEAD',
      headers: { Accept: manifestAcceptTypes.join(', ') },
      scopes: [pullScope(repo)],
      signal,
    });
    if (res.status === 404) return undefined;
    if (!res.ok) throw await registryError(res, `manifest for ${this.host}/${repo}:${reference}`);
    const digest = namedDigest(res);
    if (!digest) return undefined;
    return {
      mediaType: res.headers.get('content-type') ?? '',
      digest,
      size: Number(res.headers.get('content-length') ?? -1),
    };
  }

  /** PUTs a manifest under a tag or digest; returns the digest the registry reports (else the bytes'). */
  async putManifest(
    repo: string,
    reference: string,
    mediaType: string,
    bytes: Buffer,
    signal?: AbortSignal,
  ): Promise<string> {
    const res = await this.send(registryPath(repo, 'manifests', reference), {
      method: 'PUT',
      headers: { 'Content-Type': mediaType },
      body: bytes,
      scopes: [pushScope(repo)],
      signal,
    });
    res.discard();
    if (res.status !== 201 && res.status !== 200 && res.status !== 202) {
      throw await registryError(res, `manifest ${this.host}/${repo}:${reference}`);
    }
    return namedDigest(res) ?? manifestDigest(bytes, mediaType);
  }

  /** DELETEs a manifest by tag or digest; a registry that will not (400, 405) throws InvalidParameterError. */
  async deleteManifest(repo: string, reference: string, signal?: AbortSignal): Promise<void> {
    const res = await this.send(registryPath(repo, 'manifests', reference), {
      method: 'DELETE',
      scopes: [repositoryScope(repo, 'delete')],
      signal,
    });
    if (res.status !== 202 && res.status !== 200)
      throw await registryError(res, `delete of ${this.host}/${repo}:${reference}`);
    res.discard();
  }

  /** All tags of a repository, following `Link` pagination. */
  async listTags(repo: string, signal?: AbortSignal): Promise<string[]> {
    const tags: string[] = [];
    let next: string | undefined = `/v2/${encodedName(repo)}/tags/list`;
    while (next) {
      const res = await this.send(next, { scopes: [pullScope(repo)], signal });
      if (!res.ok) throw await registryError(res, `tags of ${this.host}/${repo}`);
      const body = (await res.json()) as { tags?: string[] | null };
      tags.push(...(body.tags ?? []));
      next = nextPage(res);
    }
    return tags;
  }

  /** Every repository of the registry (GET /v2/_catalog, following `Link` pagination). */
  async listCatalog(signal?: AbortSignal): Promise<string[]> {
    const repositories: string[] = [];
    let next: string | undefined = '/v2/_catalog?n=1000';
    while (next) {
      const res = await this.send(next, { scopes: [catalogScope], signal });
      if (!res.ok) throw await registryError(res, `catalog of ${this.host}`);
      const body = (await res.json()) as Partial<CatalogResponse>;
      repositories.push(...(body.repositories ?? []));
      next = nextPage(res);
    }
    return repositories;
  }

  /**
   * The blob's bytes as a stream that errors instead of ending if they do not match `desc`: its
   * size always (when known), its digest unless `checkDigest` is false (for a reader that checks it itself).
   */
  async openBlob(
    repo: string,
    desc: { digest: string; size: number },
    options: BlobReadOptions = {},
  ): Promise<Readable> {
    const res = await this.send(registryPath(repo, 'blobs', desc.digest), {
      scopes: [pullScope(repo)],
      signal: options.signal,
    });
    if (!res.ok) throw await registryError(res, `blob ${desc.digest} in ${this.host}/${repo}`);
    const { body } = res;
    const verifier = new VerifyingStream(
      { digest: desc.digest, size: desc.size >= 0 ? desc.size : undefined },
      options.onBytes,
      options.checkDigest,
    );
    body.on('error', (err) => verifier.destroy(err));
    verifier.on('close', () => body.destroy());
    return body.pipe(verifier);
  }

  /** Whether the registry has the blob, asked before uploading it (hence the push scope). */
  async blobExists(repo: string, digest: string, signal?: AbortSignal): Promise<boolean> {
    const res = await this.send(registryPath(repo, 'blobs', digest), {
      method: 'HEAD',
      scopes: [pushScope(repo)],
      signal,
    });
    if (res.ok) return true;
    if (res.status === 404) return false;
    throw await registryError(res, `blob ${digest} in ${this.host}/${repo}`);
  }
}

async function readLimited(res: HttpResponse, limit: number, what: string): Promise<Buffer> {
  const declared = Number(res.headers.get('content-length') ?? 0);
  if (declared > limit) throw new InvalidParameterError(`${what} is larger than ${limit} bytes`);
  const bytes = await res.buffer();
  if (bytes.length > limit) throw new InvalidParameterError(`${what} is larger than ${limit} bytes`);
  return bytes;
}
