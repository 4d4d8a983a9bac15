// The one node of the swarm: its record as a manager and leader, its list filters and updates.
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import type { NodeSpec, SwarmNode, TlsInfo } from '../../api/swarm-types';
import { checkFilterKeys, labelMatches } from '../../lib/filters';

export interface NodeHost {
  hostname: string;
  ncpu: number;
  memTotal: number;
  engineVersion: string;
}

const arch: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64', arm: 'armv7l' };

/** The node's description as the engine reports it (the plugins a task can use here). */
export function nodeDescription(host: NodeHost, tls: TlsInfo): SwarmNode['Description'] {
  return {
    Hostname: host.hostname,
    Platform: { Architecture: arch[process.arch] ?? process.arch, OS: 'linux' },
    Resources: { NanoCPUs: host.ncpu * 1e9, MemoryBytes: host.memTotal },
    Engine: {
      EngineVersion: host.engineVersion,
      Plugins: [
        { Type: 'Log', Name: 'json-file' },
        { Type: 'Log', Name: 'none' },
        { Type: 'Network', Name: 'bridge' },
        { Type: 'Network', Name: 'host' },
        { Type: 'Network', Name: 'null' },
        { Type: 'Network', Name: 'overlay' },
        { Type: 'Volume', Name: 'local' },
      ],
    },
    TLSInfo: tls,
  };
}

const nodeFilterKeys = ['id', 'label', 'membership', 'name', 'node.label', 'role'];

/** `key`, `key=value`, `key!=value` against the node's own labels (node.label). */
function nodeLabelMatches(labels: Record<string, string>, wanted: string): boolean {
  const ne = /^([^!=]+)!=(.*)$/.exec(wanted);
  if (ne) return labels[ne[1]] !== ne[2];
  return labelMatches(labels, wanted);
}

export function nodeMatches(node: SwarmNode, filters: Filters): boolean {
  checkFilterKeys(filters, nodeFilterKeys);
  const any = (key: string, test: (v: string) => boolean) => {
    const values = filters.get(key);
    return !values?.length || values.some(test);
  };
  for (const v of filters.get('membership') ?? [])
    if (v !== 'accepted' && v !== 'pending')
      throw new InvalidParameterError(`Invalid membership filter: '${v}'`);
  for (const v of filters.get('role') ?? [])
    if (v !== 'manager' && v !== 'worker') throw new InvalidParameterError(`Invalid role filter: '${v}'`);
  return (
    any('id', (v) => node.ID.startsWith(v)) &&
    any('name', (v) => node.Description.Hostname === v || node.Spec.Name === v) &&
    any('label', (v) => labelMatches(node.Description.Engine.Labels ?? {}, v)) &&
    any('node.label', (v) => nodeLabelMatches(node.Spec.Labels ?? {}, v)) &&
    any('membership', (v) => v === 'accepted') &&
    any('role', (v) => v === node.Spec.Role)
  );
}

/** The node named by ID, ID prefix or hostname. */
export function findNode(nodes: SwarmNode[], ref: string): SwarmNode {
  const node =
    nodes.find((n) => n.ID === ref) ??
    nodes.find((n) => n.Description.Hostname === ref || n.Spec.Name === ref) ??
    (ref ? nodes.find((n) => n.ID.startsWith(ref)) : undefined);
  if (!node) throw new NotFoundError(`node ${ref} not found`);
  return node;
}

/** A node update's spec: Role and Availability required; the rest replaced as given. */
export function checkNodeSpec(spec: NodeSpec, node: SwarmNode): NodeSpec {
  if (spec.Role !== 'manager' && spec.Role !== 'worker')
    throw new InvalidParameterError(
      `invalid role ${JSON.stringify(spec.Role ?? '')}, only worker and manager are supported`,
    );
  if (!['active', 'pause', 'drain'].includes(spec.Availability ?? ''))
    throw new InvalidParameterError(
      `invalid availability ${JSON.stringify(spec.Availability ?? '')}, only active, pause and drain are supported`,
    );
  if (spec.Role === 'worker' && node.Spec.Role === 'manager')
    throw new InvalidParameterError('attempting to demote the last manager of the swarm');
  return { Name: spec.Name, Labels: spec.Labels ?? {}, Role: spec.Role, Availability: spec.Availability };
}
