// Registry operations the tests and the bench repeat: push a blob (whole or chunked), push a
// manifest, and build a schema2 image manifest around pushed blobs.
import type { Descriptor as OciDescriptor } from '../../api/manifest-types';
import { sha256, type Digest } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';
import { http, type HttpResponse } from '../../testing/http-client';

function check(res: HttpResponse, status: number, what: string): HttpResponse {
  if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.body.toString()}`);
  return res;
}

export async function startUpload(base: string, name: string): Promise<string> {
  const res = check(await http(`${base}/v2/${name}/blobs/uploads/`, { method: 'POST' }), 202, 'start upload');
  return new URL(res.headers.location as string, base).toString();
}

/** The upload URL with `digest` added (Locations may already carry a query, e.g. Distribution's). */
export function withDigest(location: string, digest: Digest): string {
  const url = new URL(location);
  url.searchParams.append('digest', digest);
  return url.toString();
}

/** POST then a single PUT carrying the whole blob (its digest computed unless given). */
export async function pushBlob(
  base: string,
  name: string,
  data: Buffer,
  digest = sha256(data),
): Promise<Digest> {
  const location = await startUpload(base, name);
  const res = await http(withDigest(location, digest), {
    method: 'PUT',
    body: data,
    headers: { 'Content-Type': 'application/octet-stream' },
  });
  check(res, 201, 'put blob');
  return digest;
}

/** POST, PATCH chunks with Content-Range, then PUT with the digest (computed unless given). */
export async function pushBlobChunked(
  base: string,
  name: string,
  data: Buffer,
  chunkSize: number,
  digest = sha256(data),
): Promise<Digest> {
  let location = await startUpload(base, name);
  for (let start = 0; start < data.length; start += chunkSize) {
    const chunk = data.subarray(start, Math.min(start + chunkSize, data.length));
    const res = await http(location, {
      method: 'PATCH',
      body: chunk,
      headers: {
        'Content-Type': 'application/octet-stream',
        'Content-Range': `${start}-${start + chunk.length - 1}`,
      },
    });
    check(res, 202, 'patch chunk');
    location = new URL(res.headers.location as string, base).toString();
  }
  check(await http(withDigest(location, digest), { method: 'PUT' }), 201, 'complete upload');
  return digest;
}

export async function putManifest(
  base: string,
  name: string,
  reference: string,
  body: Buffer | string,
  contentType: string = MediaTypes.dockerManifest,
  headers: Record<string, string> = {},
): Promise<HttpResponse> {
  return http(`${base}/v2/${name}/manifests/${reference}`, {
    method: 'PUT',
    body,
    headers: { ...headers, 'Content-Type': contentType },
  });
}

export type Descriptor = Pick<OciDescriptor, 'mediaType' | 'size'> & { digest: Digest };

export function descriptor(mediaType: string, data: Buffer): Descriptor {
  return { mediaType, digest: sha256(data), size: data.length };
}

/** A schema2 manifest body for a config and layers already pushed. */
export function imageManifest(
  config: Descriptor,
  layers: Descriptor[],
  mediaType: string = MediaTypes.dockerManifest,
): Buffer {
  return Buffer.from(JSON.stringify({ schemaVersion: 2, mediaType, config, layers }, null, 3));
}

/** Pushes a small random config and layer and returns the manifest body referencing them. */
export async function pushSmallImage(base: string, name: string, seed: string): Promise<Buffer> {
  const config = Buffer.from(JSON.stringify({ architecture: 'amd64', os: 'linux', seed }));
  const layer = Buffer.from(`layer of ${seed}`);
  await pushBlob(base, name, config);
  await pushBlob(base, name, layer);
  return imageManifest(descriptor('application/vnd.docker.container.image.v1+json', config), [
    descriptor('application/vnd.docker.image.rootfs.diff.tar.gzip', layer),
  ]);
}
