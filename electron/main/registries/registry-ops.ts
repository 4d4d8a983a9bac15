// What the registry browser asks of registries beyond plain reads, done main-side with each
// registry's own session: copying an image between two registries (blobs mounted when both
// repositories are in one registry, else streamed from one to the other; then the manifests,
// byte for byte so digests stay), and deleting a tag.
import { createHash } from 'node:crypto';
import { Transform } from 'node:stream';
import { MANIFEST_ACCEPT } from '../../../daemon/api/manifest-accept';
import type { HttpResponse } from '../../../daemon/lib/http-client';
import { RegistryAccessError, type RegistrySession } from './registry-session';

/** One line of progress, in the Docker Engine's pull/push shape so the UI folds both alike. */
export interface ProgressMessage {
  status?: string;
  id?: string;
  progressDetail?: { current?: number; total?: number };
  error?: string;
  errorDetail?: { message: string };
}

export type Emit = (m: ProgressMessage) => void;

interface Descriptor {
  mediaType?: string;
  digest: string;
  size: number;
}

interface Fetched {
  bytes: Buffer;
  mediaType: string;
  digest: string;
  json: { mediaType?: string; config?: Descriptor; layers?: Descriptor[]; manifests?: Descriptor[] };
}

const sha256 = (b: Buffer) => `sha256:${createHash('sha256').update(b).digest('hex')}`;
const shortId = (digest: string) => digest.replace(/^sha256:/, '').slice(0, 12);
/** Progress lines at most every this many bytes of a blob. */
const PROGRESS_STEP = 256 * 1024;

/** The registry's own error text ({errors:[{code,message}]}), or the status. */
async function failure(res: HttpResponse, what: string): Promise<RegistryAccessError> {
  const text = await res.text().catch(() => '');
  let detail = text.trim().slice(0, 300);
  try {
    const { errors } = JSON.parse(text) as { errors?: { code: string; message?: string }[] };
    if (errors?.length) detail = errors.map((e) => [e.code, e.message].filter(Boolean).join(': ')).join('; ');
  } catch {}
  return new RegistryAccessError(res.status, `${what}: ${res.status}${detail ? ` ${detail}` : ''}`);
}

async function getManifest(
  s: RegistrySession,
  repo: string,
  ref: string,
  signal?: AbortSignal,
): Promise<Fetched> {
  const res = await s.fetch(`/v2/${repo}/manifests/${ref}`, { headers: { accept: MANIFEST_ACCEPT }, signal });
  if (!res.ok) throw await failure(res, `${s.host}/${repo}:${ref}`);
  const bytes = await res.buffer();
  const json = JSON.parse(bytes.toString('utf8')) as Fetched['json'];
  const mediaType = json.mediaType ?? res.headers.get('content-type') ?? '';
  return { bytes, mediaType, digest: sha256(bytes), json };
}

async function putManifest(
  s: RegistrySession,
  repo: string,
  ref: string,
  m: Pick<Fetched, 'bytes' | 'mediaType'>,
  signal?: AbortSignal,
): Promise<void> {
  const res = await s.fetch(`/v2/${repo}/manifests/${ref}`, {
    method: 'PUT',
    headers: { 'content-type': m.mediaType },
    body: m.bytes,
    signal,
  });
  if (res.status !== 201) throw await failure(res, `put manifest ${s.host}/${repo}:${ref}`);
  res.discard();
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
    throw await failure(res, `start an upload to ${s.host}/${repo}`);
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
  const head = await to.session.fetch(`/v2/${to.repository}/blobs/${d.digest}`, { method: 'HEAD', signal });
  if (head.ok) return emit({ id, status: 'Already exists' });
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
  const blob = await from.session.fetch(`/v2/${from.repository}/blobs/${d.digest}`, { signal });
  if (!blob.ok) throw await failure(blob, `blob ${d.digest} of ${from.session.host}/${from.repository}`);
  let current = 0;
  let shown = 0;
  const counted = blob.body.pipe(
    new Transform({
      transform(chunk: Buffer, _enc, done) {
        current += chunk.length;
        if (current - shown >= PROGRESS_STEP) {
          shown = current;
          emit({ id, status: 'Copying', progressDetail: { current, total: d.size } });
        }
        done(null, chunk);
      },
    }),
  );
  blob.body.on('error', (err) => counted.destroy(err));
  const url = new URL(location, to.session.config.url);
  url.searchParams.set('digest', d.digest);
  const put = await to.session.fetch(url.toString(), {
    method: 'PUT',
    headers: { 'content-type': 'application/octet-stream' },
    body: counted,
    signal,
  });
  if (put.status !== 201)
    throw await failure(put, `upload of ${d.digest} to ${to.session.host}/${to.repository}`);
  put.discard();
  emit({ id, status: 'Copied', progressDetail: { current: d.size, total: d.size } });
}

async function copyManifestBlobs(from: Side, to: Side, m: Fetched, emit: Emit, signal?: AbortSignal) {
  for (const d of [...(m.json.config ? [m.json.config] : []), ...(m.json.layers ?? [])])
    await copyBlob(from, to, d, emit, signal);
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
  const top = await getManifest(from.session, from.repository, from.reference, signal);
  emit({ status: `Copying ${from.session.host}/${from.repository}:${from.reference} (${top.digest})` });
  for (const child of top.json.manifests ?? []) {
    const m = await getManifest(from.session, from.repository, child.digest, signal);
    await copyManifestBlobs(from, to, m, emit, signal);
    await putManifest(to.session, to.repository, m.digest, m, signal);
  }
  if (!top.json.manifests) await copyManifestBlobs(from, to, top, emit, signal);
  await putManifest(to.session, to.repository, to.tag, top, signal);
  emit({ status: `Copied to ${to.session.host}/${to.repository}:${to.tag}` });
  return top.digest;
}

/** The digest of `{}`, the config of the stand-in manifest below. */
const EMPTY_JSON = Buffer.from('{}');

/**
 * Deletes one tag and leaves its manifest and the manifest's other tags. Registries that delete
 * only by digest (Distribution 2.8) refuse a DELETE by tag: the tag is then moved to
 * a stand-in manifest of its own, and that manifest is deleted by digest.
 */
export async function deleteTag(s: RegistrySession, repo: string, tag: string): Promise<void> {
  const head = await s.fetch(`/v2/${repo}/manifests/${tag}`, {
    method: 'HEAD',
    headers: { accept: MANIFEST_ACCEPT },
  });
  if (!head.ok) throw await failure(head, `${s.host}/${repo}:${tag}`);
  const direct = await s.fetch(`/v2/${repo}/manifests/${tag}`, { method: 'DELETE' });
  if (direct.status === 202 || direct.status === 200) return void direct.discard();
  if (direct.status !== 400 && direct.status !== 405) throw await failure(direct, `delete ${repo}:${tag}`);
  direct.discard();
  const config = sha256(EMPTY_JSON);
  const exists = await s.fetch(`/v2/${repo}/blobs/${config}`, { method: 'HEAD' });
  if (!exists.ok) {
    const start = await startUpload(s, repo, '', []);
    const url = new URL(start.headers.get('location') ?? '', s.config.url);
    url.searchParams.set('digest', config);
    const put = await s.fetch(url.toString(), { method: 'PUT', body: EMPTY_JSON });
    if (put.status !== 201) throw await failure(put, `upload to ${repo}`);
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
  await putManifest(s, repo, tag, {
    bytes: standIn,
    mediaType: 'application/vnd.oci.image.manifest.v1+json',
  });
  const del = await s.fetch(`/v2/${repo}/manifests/${sha256(standIn)}`, { method: 'DELETE' });
  if (del.status !== 202) throw await failure(del, `delete ${repo}:${tag}`);
  del.discard();
}
