// GET /containers/json: all, limit, since, before and the filters of the spec, newest first.
import type { ContainerListRequest, ContainerSummary } from '../../api/container-summary-types';
import { InvalidParameterError } from '../../api/errors';
import type { Container } from './container';
import type { ContainerRecord } from './container-record';
import type { ContainerRegistry } from './container-registry';
import { summaryView, type Sizes } from './container-view';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import type { Filters } from '../../api/filters';

export const listFilterKeys = [
  'exited',
  'status',
  'label',
  'ancestor',
  'before',
  'since',
  'volume',
  'network',
  'name',
  'id',
  'health',
  'isolation',
  'is-task',
  'publish',
  'expose',
] as const;

const statuses = ['created', 'restarting', 'running', 'removing', 'paused', 'exited', 'dead'];
const healths = ['starting', 'healthy', 'unhealthy', 'none'];

export interface ListDeps {
  registry: ContainerRegistry;
  /** The IDs of the images `ref` names (for `ancestor`), empty when none. */
  imageIds(ref: string): Promise<string[]>;
  sizes(container: Container): Promise<Sizes>;
}

function validate(filters: Filters): void {
  checkFilterKeys(filters, listFilterKeys);
  for (const s of filters.get('status') ?? []) {
    if (!statuses.includes(s)) throw new InvalidParameterError(`invalid filter 'status=${s}'`);
  }
  for (const h of filters.get('health') ?? []) {
    if (!healths.includes(h)) throw new InvalidParameterError(`Unrecognised filter value for health: ${h}`);
  }
  for (const e of filters.get('exited') ?? []) {
    if (!/^-?\d+$/.test(e)) throw new InvalidParameterError(`invalid filter 'exited=${e}'`);
  }
  for (const i of filters.get('isolation') ?? []) {
    if (!['default', 'process', 'hyperv'].includes(i))
      throw new InvalidParameterError(`Invalid isolation: '${i}'`);
  }
}

function createdOf(c: Container): number {
  return Date.parse(c.record.Created);
}

export async function listContainers(
  deps: ListDeps,
  opts: ContainerListRequest,
): Promise<ContainerSummary[]> {
  const f = opts.filters;
  validate(f);
  const any = (key: string, pred: (v: string) => boolean) => {
    const values = f.get(key);
    return !values || values.length === 0 || values.some(pred);
  };
  const ancestorIds = new Set<string>();
  for (const ref of f.get('ancestor') ?? []) for (const id of await deps.imageIds(ref)) ancestorIds.add(id);
  const sinceRef = [...(f.get('since') ?? []), ...(opts.since ? [opts.since] : [])];
  const beforeRef = [...(f.get('before') ?? []), ...(opts.before ? [opts.before] : [])];
  const since = sinceRef.map((r) => createdOf(deps.registry.get(r)));
  const before = beforeRef.map((r) => createdOf(deps.registry.get(r)));

  let list = deps.registry.all().sort((a, b) => createdOf(b) - createdOf(a));
  const showAll =
    opts.all || (opts.limit !== undefined && opts.limit > 0) || since.length > 0 || before.length > 0;
  list = list.filter((c) => {
    const r = c.record;
    const s = r.State;
    if (
      !showAll &&
      !f.has('status') &&
      !f.has('exited') &&
      s.Status !== 'running' &&
      s.Status !== 'paused' &&
      s.Status !== 'restarting'
    )
      return false;
    if (since.some((t) => createdOf(c) <= t) || before.some((t) => createdOf(c) >= t)) return false;
    const names = [r.Name.slice(1)];
    return (
      any('exited', (v) => s.Status === 'exited' && s.ExitCode === Number(v)) &&
      any('status', (v) => s.Status === v) &&
      (f.get('label') ?? []).every((v) => labelMatches(r.Config.Labels ?? {}, v)) &&
      any('ancestor', () => ancestorIds.has(r.Image)) &&
      any('volume', (v) => r.Mounts.some((m) => m.Destination === v || ('Name' in m && m.Name === v))) &&
      any('network', (v) => (r.HostConfig.NetworkMode ?? 'default') === v || r.NetworkMode === v) &&
      any('name', (v) => names.some((n) => new RegExp(v).test(n) || new RegExp(v).test(`/${n}`))) &&
      any('id', (v) => r.Id.startsWith(v)) &&
      any('health', (v) => (s.Health?.Status ?? 'none') === v) &&
      any('isolation', (v) => v === 'default') &&
      any('is-task', (v) => v !== 'true' && v !== '1') &&
      any('expose', (v) => Object.keys(r.Config.ExposedPorts ?? {}).some((p) => p === v || p === `${v}/tcp`))
    );
  });
  if (f.has('publish')) list = [];
  if (opts.limit !== undefined && opts.limit > 0) list = list.slice(0, opts.limit);
  const now = Date.now();
  // As dockerd: the name the container was made from while it still names its image, else the
  // image ID (a tag removed or moved to another image). One lookup per name per listing.
  const resolved = new Map<string, Promise<string[]>>();
  const imageColumn = async (r: ContainerRecord) => {
    const name = r.Config.Image;
    if (!name || name === r.Image) return r.Image;
    if (!resolved.has(name)) resolved.set(name, deps.imageIds(name));
    return (await resolved.get(name)!).includes(r.Image) ? name : r.Image;
  };
  return Promise.all(
    list.map(async (c) =>
      summaryView(c.record, await imageColumn(c.record), opts.size ? await deps.sizes(c) : {}, now),
    ),
  );
}
