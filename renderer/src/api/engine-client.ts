// The typed Engine API client (API 1.41 shapes), over the gateway's prefix of the selected engine.
import type { ImageLayerFiles } from '../../../daemon/api/image-layer-types';
import { E } from './engine-target';
import { withoutHelpers } from './helper-containers';
import { getJson, query, request, sendJson, upload, withToken, wsUrl } from './gateway';
import type {
  BuildPruneResponse,
  ContainerCreateBody,
  ContainerCreateResponse,
  ContainerPruneResponse,
  ContainerInspect,
  ContainerSummary,
  DistributionInspect,
  ExecCreateResponse,
  ExecInspect,
  ImageDeleteItem,
  ImageHistoryItem,
  ImageInspect,
  ImagePruneResponse,
  ImageSearchResult,
  ImageSummary,
  InfoResponse,
  StatsSample,
  NetworkConnectBody,
  NetworkCreateBody,
  NetworkCreateResponse,
  NetworkPruneResponse,
  NetworkResource,
  SystemDfResponse,
  VersionResponse,
  Volume,
  VolumeCreateBody,
  VolumeListResponse,
  VolumePruneResponse,
} from './engine-types';

const enc = encodeURIComponent;

/**
 * A volume list as engines added beside svcd may send it: Docker's API gives an array, even an
 * empty one, but some of them send `Volumes: null` for none.
 */
export type VolumesOrNull<T extends { Volumes: Volume[] }> = Omit<T, 'Volumes'> & {
  Volumes: Volume[] | null;
};

export interface BuildOptions {
  tags: string[];
  /** Its path in the context; the engine's default (Svcfile, then Dockerfile) when empty. */
  instructionsFile: string;
  buildArgs: Record<string, string>;
  target: string;
  noCache: boolean;
  pull: boolean;
}

export type ContainerAction = 'start' | 'stop' | 'restart' | 'pause' | 'unpause' | 'kill';

export const engine = {
  version: () => getJson<VersionResponse>(`${E()}/version`),
  info: () => getJson<InfoResponse>(`${E()}/info`),
  diskUsage: () => getJson<SystemDfResponse>(`${E()}/system/df`),
  pruneContainers: () => sendJson<ContainerPruneResponse>('POST', `${E()}/containers/prune`),
  /** Every image no container uses, tagged or not (`docker image prune -a`). */
  pruneUnusedImages: () =>
    sendJson<ImagePruneResponse>(
      'POST',
      `${E()}/images/prune${query({ filters: JSON.stringify({ dangling: ['false'] }) })}`,
    ),
  pruneBuildCache: () => sendJson<BuildPruneResponse>('POST', `${E()}/build/prune`),

  /** Repositories of the registry `term` names (`host:port/part`), as GET /images/search finds them. */
  search: (term: string, signal?: AbortSignal) =>
    getJson<ImageSearchResult[]>(`${E()}/images/search${query({ term, limit: 25 })}`, { signal }),
  /** What a reference resolves to in its registry, without pulling. */
  distribution: (name: string) => getJson<DistributionInspect>(`${E()}/distribution/${name}/json`),

  /** The user's containers: the app's own helpers (helper-containers.ts) are left out. */
  containers: async (all: boolean) =>
    withoutHelpers(await getJson<ContainerSummary[]>(`${E()}/containers/json${query({ all })}`)),
  /** Every container with the label (`key` or `key=value`), running or not, helpers included. */
  containersLabelled: (label: string) =>
    getJson<ContainerSummary[]>(
      `${E()}/containers/json${query({ all: true, filters: JSON.stringify({ label: [label] }) })}`,
    ),
  inspect: (id: string) => getJson<ContainerInspect>(`${E()}/containers/${enc(id)}/json`),
  create: (body: ContainerCreateBody, name?: string) =>
    sendJson<ContainerCreateResponse>('POST', `${E()}/containers/create${query({ name })}`, body),
  action: (id: string, action: ContainerAction) => sendJson('POST', `${E()}/containers/${enc(id)}/${action}`),
  remove: (id: string, force: boolean) =>
    sendJson('DELETE', `${E()}/containers/${enc(id)}${query({ force, v: false })}`),
  /**
   * Force-removes a container of the engine at `prefix` (the screens may have switched away from
   * it since); keepalive, so the request also goes out as the page closes.
   */
  removeFrom: (prefix: string, id: string) =>
    request(`${prefix}/containers/${enc(id)}${query({ force: true, v: false })}`, {
      method: 'DELETE',
      keepalive: true,
    }),
  /** The container's log; both streams unless `stdout` or `stderr` is set to false. */
  logs: (
    id: string,
    opts: {
      tail: string;
      follow: boolean;
      timestamps: boolean;
      since?: number | string;
      until?: string;
      stdout?: boolean;
      stderr?: boolean;
    },
    signal: AbortSignal,
  ) =>
    request(`${E()}/containers/${enc(id)}/logs${query({ stdout: true, stderr: true, ...opts })}`, { signal }),
  /** The full log as a file, streamed by the gateway without the stdcopy framing. */
  logFileUrl: (id: string, timestamps: boolean) =>
    withToken(`${E()}/containers/${enc(id)}/log-file${query({ timestamps: timestamps ? 1 : 0 })}`),
  /**
   * One sample now per container, without waiting for a second one (precpu is left empty), all
   * in one request (the gateway's view): each the sample or the engine's error for that one.
   */
  statsSamples: (ids: string[]) =>
    getJson<Array<StatsSample | { message: string }>>(`${E()}/stats-samples/${ids.map(enc).join(',')}`),
  stats: (id: string, signal: AbortSignal) =>
    request(`${E()}/containers/${enc(id)}/stats${query({ stream: 1 })}`, { signal }),
  archive: (id: string, path: string, signal?: AbortSignal) =>
    request(`${E()}/containers/${enc(id)}/archive${query({ path })}`, { signal }),
  /** Whether `path` exists in the container (HEAD on the archive answers 404 when not). */
  pathExists: (id: string, path: string) =>
    request(`${E()}/containers/${enc(id)}/archive${query({ path })}`, { method: 'HEAD' }).then(
      () => true,
      (e: { status?: number }) => (e.status === 404 ? false : Promise.reject(e as Error)),
    ),
  archiveUrl: (id: string, path: string) =>
    withToken(`${E()}/containers/${enc(id)}/archive${query({ path })}`),
  putArchive: (id: string, path: string, tar: Blob) =>
    request(`${E()}/containers/${enc(id)}/archive${query({ path })}`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/x-tar' },
      body: tar,
    }),

  execCreate: (id: string, cmd: string[]) =>
    sendJson<ExecCreateResponse>('POST', `${E()}/containers/${enc(id)}/exec`, {
      AttachStdin: true,
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      Cmd: cmd,
    }),
  /** Runs a command in a running container to its end: its output (tty) and exit code. */
  execRun: async (id: string, cmd: string[]) => {
    const created = await sendJson<ExecCreateResponse>('POST', `${E()}/containers/${enc(id)}/exec`, {
      AttachStdout: true,
      AttachStderr: true,
      Tty: true,
      Cmd: cmd,
    });
    const execId = created!.Id;
    const output = await (
      await request(`${E()}/exec/${enc(execId)}/start`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ Detach: false, Tty: true }),
      })
    ).text();
    const { ExitCode } = await getJson<ExecInspect>(`${E()}/exec/${enc(execId)}/json`);
    return { output, exitCode: ExitCode };
  },
  execResize: (execId: string, rows: number, cols: number) =>
    sendJson('POST', `${E()}/exec/${enc(execId)}/resize${query({ h: rows, w: cols })}`),
  /** The gateway bridges this WebSocket to a hijacked POST /exec/{id}/start {Tty:true}. */
  execSocketUrl: (execId: string) => wsUrl(`${E()}/exec/${enc(execId)}/start-ws`),

  images: () => getJson<ImageSummary[]>(`${E()}/images/json`),
  imageInspect: (name: string) => getJson<ImageInspect>(`${E()}/images/${enc(name)}/json`),
  imageHistory: (id: string) => getJson<ImageHistoryItem[]>(`${E()}/images/${enc(id)}/history`),
  pull: (image: string, tag: string, signal: AbortSignal) =>
    request(`${E()}/images/create${query({ fromImage: image, tag })}`, { method: 'POST', signal }),
  push: (name: string, tag: string, signal: AbortSignal) =>
    request(`${E()}/images/${enc(name)}/push${query({ tag })}`, {
      method: 'POST',
      // Our registry needs no credentials; the header is still required by the API.
      headers: { 'X-Registry-Auth': btoa('{}') },
      signal,
    }),
  /** POST /build with a context archive to the engine at `prefix`: the response streams JSON lines. */
  build: (prefix: string, context: Blob, options: BuildOptions, signal: AbortSignal) => {
    const q = new URLSearchParams({ rm: '1' });
    for (const t of options.tags) q.append('t', t);
    if (options.instructionsFile) q.set('dockerfile', options.instructionsFile);
    if (Object.keys(options.buildArgs).length) q.set('buildargs', JSON.stringify(options.buildArgs));
    if (options.target) q.set('target', options.target);
    if (options.noCache) q.set('nocache', '1');
    if (options.pull) q.set('pull', '1');
    return request(`${prefix}/build?${q}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-tar' },
      body: context,
      signal,
    });
  },
  /** A `docker save` archive; answers JSON lines ("Loaded image: …" or an error). */
  load: (archive: Blob, onProgress: (sent: number, total: number) => void, signal?: AbortSignal) =>
    upload(`${E()}/images/load`, archive, onProgress, signal),
  /** A root filesystem tar made into an image, as `docker import` (changes are Dockerfile lines). */
  importImage: (
    rootfs: Blob,
    v: { repo: string; tag: string; message?: string; changes: string[] },
    onProgress: (sent: number, total: number) => void,
    signal?: AbortSignal,
  ) => {
    // The tag goes in `repo`, which Docker and svcd read as well: Podman 4 ignores `tag` here.
    const q = new URLSearchParams({ fromSrc: '-', repo: `${v.repo}:${v.tag}` });
    if (v.message) q.set('message', v.message);
    for (const c of v.changes) q.append('changes', c);
    return upload(`${E()}/images/create?${q}`, rootfs, onProgress, signal);
  },
  /** A link that downloads the image as a `docker save` archive. */
  saveUrl: (name: string) => withToken(`${E()}/images/${enc(name)}/get`),
  /** Each layer's added, changed and removed files: the gateway reads them from the saved archive. */
  imageLayerFiles: (name: string, signal?: AbortSignal) =>
    getJson<ImageLayerFiles>(`${E()}/images/${enc(name)}/layer-files`, { signal }),
  /** Containers made from the image, running or not (the `ancestor` filter). */
  containersOf: async (image: string) =>
    withoutHelpers(
      await getJson<ContainerSummary[]>(
        `${E()}/containers/json${query({ all: true, filters: JSON.stringify({ ancestor: [image] }) })}`,
      ),
    ),
  tag: (id: string, repo: string, tag: string) =>
    sendJson('POST', `${E()}/images/${enc(id)}/tag${query({ repo, tag })}`),
  removeImage: (id: string, force: boolean) =>
    sendJson<ImageDeleteItem[]>('DELETE', `${E()}/images/${enc(id)}${query({ force })}`),

  volumes: () => getJson<VolumesOrNull<VolumeListResponse>>(`${E()}/volumes`),
  volume: (name: string) => getJson<Volume>(`${E()}/volumes/${enc(name)}`),
  createVolume: (v: VolumeCreateBody) => sendJson<Volume>('POST', `${E()}/volumes/create`, v),
  removeVolume: (name: string) => sendJson('DELETE', `${E()}/volumes/${enc(name)}`),
  pruneVolumes: () => sendJson<VolumePruneResponse>('POST', `${E()}/volumes/prune`),
  volumeUsage: () => getJson<VolumesOrNull<Pick<SystemDfResponse, 'Volumes'>>>(`${E()}/system/df`),
  networks: () => getJson<NetworkResource[]>(`${E()}/networks`),
  /** Whether the engine serves the networks API (it answers 501 until it does). */
  hasNetworks: async () =>
    await request(`${E()}/networks`).then(
      () => true,
      (e: { status?: number }) => e.status !== 501,
    ),
  network: (id: string) => getJson<NetworkResource>(`${E()}/networks/${enc(id)}`),
  createNetwork: (body: NetworkCreateBody) =>
    sendJson<NetworkCreateResponse>('POST', `${E()}/networks/create`, body),
  removeNetwork: (id: string) => sendJson('DELETE', `${E()}/networks/${enc(id)}`),
  pruneNetworks: () => sendJson<NetworkPruneResponse>('POST', `${E()}/networks/prune`),
  connect: (network: string, body: NetworkConnectBody) =>
    sendJson('POST', `${E()}/networks/${enc(network)}/connect`, body),
  disconnect: (network: string, container: string) =>
    sendJson('POST', `${E()}/networks/${enc(network)}/disconnect`, { Container: container }),

  events: (signal: AbortSignal, since?: number) => request(`${E()}/events${query({ since })}`, { signal }),
};
