// The attributes of swarm events as dockerd sets them: an object's name, and for an update
// what changed in it (`image.old`/`image.new`, `replicas.*`, `updatestate.*` of a service;
// `availability.*`, `role.*`, `state.*` of a node).
import type { SwarmNode, SwarmService } from '../../api/swarm-types';

type Attributes = Record<string, string>;

/** What of a service its update event compares. */
export type ServiceView = Pick<SwarmService, 'Spec' | 'UpdateStatus'>;

export const serviceView = (s: SwarmService): ServiceView =>
  structuredClone({ Spec: s.Spec, UpdateStatus: s.UpdateStatus });

function changed(attrs: Attributes, key: string, old: string | undefined, now: string | undefined): void {
  if (old === now) return;
  if (old !== undefined) attrs[`${key}.old`] = old;
  if (now !== undefined) attrs[`${key}.new`] = now;
}

export function serviceUpdateAttributes(before: ServiceView, after: ServiceView): Attributes {
  const attrs: Attributes = { name: after.Spec.Name ?? '' };
  changed(
    attrs,
    'image',
    before.Spec.TaskTemplate?.ContainerSpec?.Image,
    after.Spec.TaskTemplate?.ContainerSpec?.Image,
  );
  const replicas = (v: ServiceView) =>
    v.Spec.Mode?.Replicated && String(v.Spec.Mode.Replicated.Replicas ?? 1);
  if (replicas(before) && replicas(after)) changed(attrs, 'replicas', replicas(before), replicas(after));
  // dockerd names a new state only when there is one now.
  if (after.UpdateStatus) changed(attrs, 'updatestate', before.UpdateStatus?.State, after.UpdateStatus.State);
  return attrs;
}

export const nodeName = (node: SwarmNode) => node.Spec.Name || node.Description.Hostname;

export function nodeUpdateAttributes(before: SwarmNode, after: SwarmNode): Attributes {
  const attrs: Attributes = { name: nodeName(after) };
  changed(attrs, 'availability', before.Spec.Availability, after.Spec.Availability);
  changed(attrs, 'role', before.Spec.Role, after.Spec.Role);
  changed(attrs, 'state', before.Status.State, after.Status.State);
  return attrs;
}
