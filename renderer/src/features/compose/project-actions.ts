// A compose project handled as one: its containers started, stopped or restarted together, and
// removed with its networks (and, when asked, its volumes), as `docker-compose down [-v]` does.
import { E } from '../../api/engine-target';
import { getJson, query, sendJson } from '../../api/gateway';
import type { VolumesOrNull } from '../../api/engine-client';
import type { ContainerSummary, NetworkResource, VolumeListResponse } from '../../api/engine-types';
import { PROJECT_LABEL } from './projects';

const enc = encodeURIComponent;
const labelled = (project: string) => JSON.stringify({ label: [`${PROJECT_LABEL}=${project}`] });

export type ProjectAction = 'start' | 'stop' | 'restart';

/** Every container of the project, running or not (listed by the engine, not the screen). */
export const projectContainers = (project: string) =>
  getJson<ContainerSummary[]>(`${E()}/containers/json${query({ all: true, filters: labelled(project) })}`);

/** Runs the action on each container; the failures are thrown together, naming each container. */
export async function actOnProject(project: string, action: ProjectAction): Promise<void> {
  const containers = await projectContainers(project);
  const results = await Promise.allSettled(
    containers.map((c) => sendJson('POST', `${E()}/containers/${enc(c.Id)}/${action}`)),
  );
  failIfAny(
    results,
    containers.map((c) => c.Names[0]?.replace(/^\//, '') ?? c.Id),
  );
}

export interface RemovedProject {
  containers: number;
  networks: string[];
  volumes: string[];
}

/** Removes the containers (forced), then the project's networks and, with `volumes`, its volumes. */
export async function removeProject(project: string, volumes: boolean): Promise<RemovedProject> {
  const containers = await projectContainers(project);
  const gone = await Promise.allSettled(
    containers.map((c) =>
      sendJson('DELETE', `${E()}/containers/${enc(c.Id)}${query({ force: true, v: false })}`),
    ),
  );
  failIfAny(
    gone,
    containers.map((c) => c.Names[0]?.replace(/^\//, '') ?? c.Id),
  );
  const nets = await getJson<NetworkResource[]>(`${E()}/networks${query({ filters: labelled(project) })}`);
  failIfAny(
    await Promise.allSettled(nets.map((n) => sendJson('DELETE', `${E()}/networks/${enc(n.Id)}`))),
    nets.map((n) => `network ${n.Name}`),
  );
  let vols: string[] = [];
  if (volumes) {
    const list = await getJson<VolumesOrNull<VolumeListResponse>>(
      `${E()}/volumes${query({ filters: labelled(project) })}`,
    );
    vols = (list.Volumes ?? []).map((v) => v.Name);
    failIfAny(
      await Promise.allSettled(vols.map((v) => sendJson('DELETE', `${E()}/volumes/${enc(v)}`))),
      vols.map((v) => `volume ${v}`),
    );
  }
  return { containers: containers.length, networks: nets.map((n) => n.Name), volumes: vols };
}

function failIfAny(results: PromiseSettledResult<unknown>[], names: string[]): void {
  const failed = results.flatMap((r, i) =>
    r.status === 'rejected' ? [`${names[i]}: ${(r.reason as Error).message}`] : [],
  );
  if (failed.length) throw new Error(failed.join('; '));
}
