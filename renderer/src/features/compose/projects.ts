// Compose projects in the containers list: containers grouped by the labels docker-compose sets,
// each project a row of its own (what runs, what is published) above its containers.
import type { ContainerSummary } from '../../api/engine-types';

export const PROJECT_LABEL = 'com.docker.compose.project';
export const SERVICE_LABEL = 'com.docker.compose.service';

export const projectOf = (c: ContainerSummary): string | undefined => c.Labels?.[PROJECT_LABEL] || undefined;
export const serviceOf = (c: ContainerSummary): string | undefined => c.Labels?.[SERVICE_LABEL] || undefined;

/** The service, with its replica's number from the second on: `web`, `web_2`. */
export function serviceLabel(c: ContainerSummary): string | undefined {
  const service = serviceOf(c);
  const n = c.Labels?.['com.docker.compose.container-number'];
  return service && n && n !== '1' ? `${service}_${n}` : service;
}

export interface Project {
  name: string;
  containers: ContainerSummary[];
}

export type ListItem =
  { kind: 'project'; project: Project } | { kind: 'container'; c: ContainerSummary; project?: string };

/**
 * The rows in order: each project (at the place of its first container) followed by its
 * containers unless it is folded, then containers of no project where they came.
 */
export function groupedRows(containers: ContainerSummary[], folded: Set<string>): ListItem[] {
  const projects = new Map<string, Project>();
  for (const c of containers) {
    const name = projectOf(c);
    if (name)
      (projects.get(name) ?? projects.set(name, { name, containers: [] }).get(name)!).containers.push(c);
  }
  const items: ListItem[] = [];
  const placed = new Set<string>();
  for (const c of containers) {
    const name = projectOf(c);
    if (!name) {
      items.push({ kind: 'container', c });
      continue;
    }
    if (placed.has(name)) continue;
    placed.add(name);
    const project = projects.get(name)!;
    items.push({ kind: 'project', project });
    if (!folded.has(name)) {
      const byService = [...project.containers].sort((a, b) =>
        (serviceOf(a) ?? '').localeCompare(serviceOf(b) ?? ''),
      );
      for (const pc of byService) items.push({ kind: 'container', c: pc, project: name });
    }
  }
  return items;
}

/** "2 running, 1 exited": how many containers are in each state, running first. */
export function stateSummary(p: Project): string {
  const counts = new Map<string, number>();
  for (const c of p.containers) counts.set(c.State, (counts.get(c.State) ?? 0) + 1);
  return [...counts]
    .sort(([a], [b]) => (a === 'running' ? -1 : b === 'running' ? 1 : a.localeCompare(b)))
    .map(([state, n]) => `${n} ${state}`)
    .join(', ');
}

/** The host ports the project publishes, each once, in order. */
export function publishedPorts(p: Project): { host: number; container: number; proto: string }[] {
  const seen = new Map<string, { host: number; container: number; proto: string }>();
  for (const c of p.containers)
    for (const port of c.Ports)
      if (port.PublicPort)
        seen.set(`${port.PublicPort}/${port.Type}`, {
          host: port.PublicPort,
          container: port.PrivatePort,
          proto: port.Type,
        });
  return [...seen.values()].sort((a, b) => a.host - b.host);
}
