// Placement constraints (`node.role==manager`, `node.labels.zone!=b`...) evaluated against the
// one node, with swarmkit's syntax and its message for a task no node can take.
import { InvalidParameterError } from '../../api/errors';
import type { SwarmNode } from '../../api/swarm-types';

export const unmetConstraints = 'no suitable node (scheduling constraints not satisfied on 1 node)';
export const nodeUnavailable = 'no suitable node (1 node not available for new tasks)';

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

export function constraintsMet(node: SwarmNode, expressions: string[] = []): boolean {
  return expressions.every((e) => {
    const c = parse(e);
    const actual = valueOf(node, c.key);
    // Values compare case-insensitively, as swarmkit compares them.
    const same = actual !== undefined && actual.toLowerCase() === c.value.toLowerCase();
    return c.equal ? same : !same;
  });
}
