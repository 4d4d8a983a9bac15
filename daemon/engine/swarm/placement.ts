// Where a task may run, evaluated against the one node as swarmkit's scheduler filters it
// (availability, reserved resources, constraints such as `node.labels.zone!=b`, platforms, max
// replicas per node), with its explanation for a task no node can take. Spread preferences
// choose among nodes; with one node they place everything on it.
import { InvalidParameterError } from '../../api/errors';
import type { SwarmNode, SwarmTask, TaskSpec } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';
import { isTerminal } from './task-states';

interface Constraint {
  key: string;
  equal: boolean;
  value: string;
}

function parse(expression: string): Constraint {
  const m = /^\s*([\w.-]+)\s*(==|!=)\s*(.*?)\s*$/.exec(expression);
  if (!m)
    throw new InvalidParameterError(
      `rpc error: code = InvalidArgument desc = constraint expected one operator from ==, !=`,
    );
  return { key: m[1], equal: m[2] === '==', value: m[3] };
}

/** Refuses a constraint swarmkit would not parse, at create or update. */
export function checkConstraints(expressions: string[] = []): void {
  for (const e of expressions) {
    const { key } = parse(e);
    if (!/^(node\.(id|hostname|role|platform\.os|platform\.arch|labels\..+)|engine\.labels\..+)$/i.test(key))
      throw new InvalidParameterError(
        `rpc error: code = InvalidArgument desc = constraint key "${key}" is not supported`,
      );
  }
}

/** The placement as dockerd keeps it: preferences other than spread are dropped. */
export function normalPlacement(placement: TaskSpec['Placement']): TaskSpec['Placement'] {
  if (!placement?.Preferences) return placement;
  const preferences = placement.Preferences.filter((p) => p.Spread).map((p) => ({
    Spread: { SpreadDescriptor: p.Spread!.SpreadDescriptor ?? '' },
  }));
  const { Preferences: _, ...rest } = placement;
  return preferences.length ? { ...rest, Preferences: preferences } : rest;
}

function valueOf(node: SwarmNode, key: string): string | undefined {
  const lower = key.toLowerCase();
  if (lower === 'node.id') return node.ID;
  if (lower === 'node.hostname') return node.Description.Hostname;
  if (lower === 'node.role') return node.Spec.Role;
  if (lower === 'node.platform.os') return node.Description.Platform.OS;
  if (lower === 'node.platform.arch') return node.Description.Platform.Architecture;
  if (lower.startsWith('node.labels.')) return node.Spec.Labels?.[key.slice('node.labels.'.length)];
  if (lower.startsWith('engine.labels.'))
    return node.Description.Engine.Labels?.[key.slice('engine.labels.'.length)];
  return undefined;
}

function constraintsMet(node: SwarmNode, expressions: string[] = []): boolean {
  return expressions.every((e) => {
    const c = parse(e);
    const actual = valueOf(node, c.key);
    // Values compare case-insensitively, as swarmkit compares them.
    const same = actual !== undefined && actual.toLowerCase() === c.value.toLowerCase();
    return c.equal ? same : !same;
  });
}

/** swarmkit's names for an architecture it compares as one (`x86_64` is `amd64`). */
const archAliases: Record<string, string> = { x86_64: 'amd64', aarch64: 'arm64', armv7l: 'arm' };
const normalArch = (a: string) => archAliases[a.toLowerCase()] ?? a.toLowerCase();

function platformMet(node: SwarmNode, platforms: NonNullable<TaskSpec['Placement']>['Platforms'] = []) {
  const { OS, Architecture } = node.Description.Platform;
  return (
    !platforms.length ||
    platforms.some(
      (p) =>
        (!p.OS || p.OS.toLowerCase() === OS.toLowerCase()) &&
        (!p.Architecture || normalArch(p.Architecture) === normalArch(Architecture)),
    )
  );
}

/** Tasks that hold a place on the node: assigned there and not ended. */
const placed = (state: ClusterState, task: SwarmTask) =>
  state.tasks.filter((t) => t !== task && !isTerminal(t) && !['new', 'pending'].includes(t.Status.State));

function resourcesMet(state: ClusterState, node: SwarmNode, task: SwarmTask): boolean {
  const want = task.Spec.Resources?.Reservations ?? {};
  if (!want.NanoCPUs && !want.MemoryBytes) return true;
  const held = placed(state, task).map((t) => t.Spec.Resources?.Reservations ?? {});
  const sum = (key: 'NanoCPUs' | 'MemoryBytes') => held.reduce((n, r) => n + (r[key] ?? 0), want[key] ?? 0);
  const { NanoCPUs, MemoryBytes } = node.Description.Resources;
  return sum('NanoCPUs') <= NanoCPUs && sum('MemoryBytes') <= MemoryBytes;
}

/**
 * Why the node cannot take the task, as the scheduler explains it (its filters in their
 * order), or undefined when it can.
 */
export function placementProblem(state: ClusterState, node: SwarmNode, task: SwarmTask): string | undefined {
  const placement = task.Spec.Placement ?? {};
  const why = (reason: string) => `no suitable node (${reason})`;
  if (node.Spec.Availability !== 'active' || node.Status.State !== 'ready')
    return why('1 node not available for new tasks');
  if (!resourcesMet(state, node, task)) return why('insufficient resources on 1 node');
  if (!constraintsMet(node, placement.Constraints))
    return why('scheduling constraints not satisfied on 1 node');
  if (!platformMet(node, placement.Platforms)) return why('unsupported platform on 1 node');
  const max = placement.MaxReplicas ?? 0;
  if (max > 0 && placed(state, task).filter((t) => t.ServiceID === task.ServiceID).length >= max)
    return why('max replicas per node limit exceed');
  return undefined;
}
