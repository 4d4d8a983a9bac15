// What the registry browser asks of registries beyond plain reads, done main-side with each
// registry's own session: copying an image between two registries (blobs mounted when both
// repositories are in one registry, else streamed from one to the other; then the manifests,
// byte for byte so digests stay), and deleting a tag. Manifests and blobs are read through the
// wire's RegistryCalls, which refuses any whose bytes do not match their digest.
import { InvalidParameterError } from '../../../daemon/api/errors';
import type { JsonMessage, JsonStreamError } from '../../../daemon/api/image-types';
import type { Descriptor, ManifestDocument } from '../../../daemon/api/manifest-types';
import type { HttpResponse } from '../../../daemon/lib/http-client';
import type { ManifestBody } from '../../../daemon/lib/registry-wire/registry-calls';
import { registryError } from '../../../daemon/lib/registry-wire/registry-errors';
import { digestOf } from '../../../daemon/lib/registry-wire/verifying-stream';
import { RegistryAccessError, type RegistrySession } from './registry-session';

/** One line of progress, in the Docker Engine's pull/push shape so the UI folds both alike. */
export type ProgressMessage = Pick<JsonMessage, 'status' | 'id' | 'progressDetail'> &
  Partial<JsonStreamError>;

export type Emit = (m: ProgressMessage) => void;

const shortId = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);
/** Progress lines at most every this many bytes of a blob. */
const PROGRESS_STEP = 256 * 1024;

const json = (m: ManifestBody) => m.doc as unknown as ManifestDocument;

/** PUTs a manifest byte for byte, under the media type its body (else its registry) gave it. */
async function putManifest(
  s: RegistrySession,
  repo: string,
  ref: string,
  m: ManifestBody,
  signal?: AbortSignal,
) {
  const { mediaType } = json(m);
  return await s.putManifest(repo, ref, mediaType ?? m.descriptor.mediaType, m.bytes, signal);
}

async function startUpload(
  s: RegistrySession,
  repo: string,
  query: string,
  extraScopes: string[],
  signal?: AbortSignal,
): Promise<HttpResponse> {
  const res = await s.fetch(`/v2/${repo}/blobs/uploads/${query}`, { method: 'POST', signal }, extraScopes);
  if (res.status !== 201 && res.status !== 202)
    throw await registryError(res, `start an upload to ${s.host}/${repo}`);
  return res;
}

interface Side {
  session: RegistrySession;
  repository: string;
}

async function copyBlob(
  from: Side,
  to: Side,
  d: Descriptor,
  emit: Emit,
  signal?: AbortSignal,
): Promise<void> {
  const id = shortId(d.digest);
  if (await to.session.blobExists(to.repository, d.digest, signal))
    return emit({ id, status: 'Already exists' });
  let upload: HttpResponse;
  if (from.session === to.session) {
    // One registry: a cross-repository mount copies no byte.
    upload = await startUpload(
      to.session,
      to.repository,
      `?mount=${d.digest}&from=${encodeURIComponent(from.repository)}`,
      [`repository:${from.repository}:pull`],
      signal,
    );
    if (upload.status === 201) return emit({ id, status: `Mounted from ${from.repository}` });
  } else upload = await startUpload(to.session, to.repository, '', [], signal);
  const location = upload.headers.get('location');
  if (!location) throw new RegistryAccessError(502, `${to.session.host} gave no upload location`);
  let shown = 0;
  const blob = await from.session.openBlob(from.repository, d, {
    signal,
    onBytes: (current) => {
      if (current - shown < PROGRESS_STEP) return;
      shown = current;
      emit({ id, status: 'Copying', progressDetail: { current, total: d.size } });
    },
  });
  const url = new URL(location, to.session.config.url);
  url.searchParams.set('digest', d.digest);
  let put: HttpResponse;
  try {
    put = await to.session.fetch(url.toString(), {
      method: 'PUT',
      headers: { 'content-type': 'application/octet-stream' },
      body: blob,
      signal,
    });
  } catch (err) {
    // Bytes that do not match the digest cut the upload: that is the failure to tell.
    throw blob.errored ?? err;
  }
  if (put.status !== 201)
    throw await registryError(put, `upload of ${d.digest} to ${to.session.host}/${to.repository}`);
  put.discard();
  emit({ id, status: 'Copied', progressDetail: { current: d.size, total: d.size } });
}

async function copyManifestBlobs(from: Side, to: Side, m: ManifestBody, emit: Emit, signal?: AbortSignal) {
  const { config, layers = [] } = json(m);
  for (const d of [...(config ? [config] : []), ...layers]) await copyBlob(from, to, d, emit, signal);
}

/**
 * Copies `from`'s image (an index with each of its manifests, or one manifest) to `to` as
 * `tag`. Returns the digest, the same on both sides.
 */
export async function copyImage(
  from: Side & { reference: string },
  to: Side & { tag: string },
  emit: Emit,
  signal?: AbortSignal,
): Promise<string> {
  const top = await from.session.getManifest(from.repository, from.reference, signal);
  const { digest } = top.descriptor;
  emit({ status: `Copying ${from.session.host}/${from.repository}:${from.reference} (${digest})` });
  const { manifests } = json(top);
  for (const child of manifests ?? []) {
    const m = await from.session.getManifest(from.repository, child.digest, signal);
    await copyManifestBlobs(from, to, m, emit, signal);
    await putManifest(to.session, to.repository, child.digest, m, signal);
  }
  if (!manifests) await copyManifestBlobs(from, to, top, emit, signal);
  await putManifest(to.session, to.repository, to.tag, top, signal);
  emit({ status: `Copied to ${to.session.host}/${to.repository}:${to.tag}` });
  return digest;
}

/** `{}`, the config of the stand-in manifest below. */
const EMPTY_JSON = Buffer.from('{}');

/**
 * Deletes one tag and leaves its manifest and the manifest's other tags. Registries that delete
 * only by digest (Distribution 2.8) refuse a DELETE by tag: the tag is then moved to
 * a stand-in manifest of its own, and that manifest is deleted by digest.
 */
export async function deleteTag(s: RegistrySession, repo: string, tag: string): Promise<void> {
  if (!(await s.headManifest(repo, tag)))
    throw new RegistryAccessError(404, `${s.host}/${repo}:${tag}: manifest unknown`);
  try {
    return await s.deleteManifest(repo, tag);
  } catch (err) {
    // 400 or 405: the registry deletes by digest only.
    if (!(err instanceof InvalidParameterError)) throw err;
  }
  const config = digestOf(EMPTY_JSON);
  if (!(await s.blobExists(repo, config))) {
    const start = await startUpload(s, repo, '', []);
    const url = new URL(start.headers.get('location') ?? '', s.config.url);
    url.searchParams.set('digest', config);
    const put = await s.fetch(url.toString(), { method: 'PUT', body: EMPTY_JSON });
    if (put.status !== 201) throw await registryError(put, `upload to ${repo}`);
    put.discard();
  }
  const standIn = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: 'application/vnd.oci.image.manifest.v1+json',
      config: {
        mediaType: 'application/vnd.oci.image.config.v1+json',
        digest: config,
        size: EMPTY_JSON.length,
      },
      layers: [],
      annotations: { 'org.svc-desktop.deleted-tag': `${repo}:${tag} ${new Date().toISOString()}` },
    }),
  );
  const digest = await s.putManifest(repo, tag, 'application/vnd.oci.image.manifest.v1+json', standIn);
  await s.deleteManifest(repo, digest);
}
