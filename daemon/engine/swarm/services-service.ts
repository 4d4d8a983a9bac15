// POST/GET/DELETE /services and GET /tasks: service records and their views. What runs is the
// orchestrator's business; this module writes the desired state and wakes it.
import { InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Filters } from '../../api/filters';
import type { LogsStream } from '../../api/container-stream-types';
import type {
  PortConfig,
  ServiceCreateResponse,
  ServiceListRequest,
  ServiceLogsRequest,
  ServiceSpec,
  ServiceUpdateRequest,
  SwarmService,
  SwarmTask,
} from '../../api/swarm-types';
import { checkFilterKeys, labelMatches } from '../../lib/filters';
import { randomName } from '../containers/random-name';
import type { Cluster } from './cluster';
import type { ClusterState } from './cluster-state';
import { checkVersion } from './nodes-service';
import { checkConstraints } from './placement';
import { checkServiceSpec, modeOf, withDefaults } from './service-spec';
import { serviceLogs } from './service-logs';
import { serviceUpdateAttributes, serviceView } from './swarm-events';
import { assignVips, releaseVips, type VipPort } from './service-vips';
import { newObjectId } from './swarm-ids';
import { findNode } from './swarm-node';
import type { TaskContainerPort } from './task-containers';
import { isOutdated, isTerminal, meantToRun } from './task-states';
import { rollBack } from './update-runner';

/** swarmkit's range for ingress ports it picks itself. */
const autoPorts = { first: 30000, last: 32767 };

export interface ServicesServiceDeps {
  cluster: Cluster;
  containers: TaskContainerPort;
  /** A network's ID from its name or ID (NotFoundError when there is none). */
  resolveNetwork: (ref: string) => string;
  vips: VipPort;
}

export function findService(state: ClusterState, ref: string): SwarmService {
  const found =
    state.services.find((s) => s.ID === ref) ??
    state.services.find((s) => s.Spec.Name === ref) ??
    (ref ? state.services.filter((s) => s.ID.startsWith(ref)) : []).find((_, __, all) => all.length === 1);
  if (!found) throw new NotFoundError(`service ${ref} not found`);
  return found;
}

/** The endpoint's ports with a published port picked for ingress ports given none. */
function endpointPorts(state: ClusterState, spec: ServiceSpec, previous?: PortConfig[]): PortConfig[] {
  const used = new Set(state.services.flatMap((s) => (s.Endpoint.Ports ?? []).map((p) => p.PublishedPort)));
  return (spec.EndpointSpec?.Ports ?? []).map((p) => {
    if (p.PublishedPort || p.PublishMode === 'host') return p;
    const kept = previous?.find((q) => q.TargetPort === p.TargetPort && q.Protocol === p.Protocol);
    if (kept?.PublishedPort) return { ...p, PublishedPort: kept.PublishedPort };
    let port = autoPorts.first;
    while (used.has(port) && port < autoPorts.last) port++;
    used.add(port);
    return { ...p, PublishedPort: port };
  });
}

export class ServicesService {
  constructor(private readonly deps: ServicesServiceDeps) {}

  private get cluster(): Cluster {
    return this.deps.cluster;
  }

  private checked(state: ClusterState, spec: ServiceSpec, self?: SwarmService): ServiceSpec {
    checkConstraints(spec.TaskTemplate?.Placement?.Constraints);
    return checkServiceSpec(state, spec, this.deps.resolveNetwork, self);
  }

  create(body: ServiceSpec, auth?: string): Promise<ServiceCreateResponse> {
    return this.cluster.write(async (state) => {
      const spec = this.checked(state, { ...body, Name: body.Name || randomName(0) });
      const service: SwarmService = {
        ...this.cluster.newMeta(state, newObjectId()),
        Spec: spec,
        Endpoint: { Spec: spec.EndpointSpec ?? {} },
      };
      const ports = endpointPorts(state, spec);
      if (ports.length) service.Endpoint.Ports = ports;
      await assignVips(this.deps.vips, service);
      if (modeOf(spec).endsWith('job'))
        service.JobStatus = {
          JobIteration: { Index: service.Version.Index },
          LastExecution: service.CreatedAt,
        };
      state.services.push(service);
      if (auth) (state.registryAuth ??= {})[service.ID] = { spec: auth };
      this.cluster.publish('service', 'create', service.ID, { name: spec.Name ?? '' });
      return { ID: service.ID, Warnings: null };
    });
  }

  update(req: ServiceUpdateRequest): Promise<{ Warnings: string[] | null }> {
    return this.cluster.write(async (state) => {
      const service = findService(state, req.ref);
      checkVersion(`service ${service.ID}`, service.Version.Index, req.version);
      const before = serviceView(service);
      if (req.rollback) {
        if (!service.PreviousSpec)
          throw new InvalidParameterError(
            `rpc error: code = FailedPrecondition desc = service ${service.ID} does not have a previous spec`,
          );
        rollBack(state, service, 'manually requested rollback');
      } else {
        const spec = this.checked(state, req.spec, service);
        const held = state.registryAuth?.[service.ID] ?? {};
        const auth = req.auth || (req.authFrom === 'previous-spec' ? held.previous : held.spec);
        (state.registryAuth ??= {})[service.ID] = { spec: auth, previous: held.spec };
        service.PreviousSpec = service.Spec;
        service.Spec = spec;
        // As swarmkit: the update runner starts a new one if any task is out of date.
        delete service.UpdateStatus;
      }
      const previous = service.Endpoint;
      service.Endpoint = { Spec: service.Spec.EndpointSpec ?? {} };
      const ports = endpointPorts(state, service.Spec, previous.Ports);
      if (ports.length) service.Endpoint.Ports = ports;
      await assignVips(this.deps.vips, service, previous.VirtualIPs);
      this.cluster.touch(state, service);
      // A job's update is a new run of it.
      if (service.JobStatus)
        service.JobStatus = {
          JobIteration: { Index: service.Version.Index },
          LastExecution: service.UpdatedAt,
        };
      this.cluster.publish(
        'service',
        'update',
        service.ID,
        serviceUpdateAttributes(before, serviceView(service)),
      );
      return { Warnings: null };
    });
  }

  remove(ref: string): Promise<void> {
    return this.cluster.write(async (state) => {
      const service = findService(state, ref);
      state.services.splice(state.services.indexOf(service), 1);
      delete state.registryAuth?.[service.ID];
      await releaseVips(this.deps.vips, service);
      this.cluster.publish('service', 'remove', service.ID, { name: service.Spec.Name ?? '' });
    });
  }

  inspect(ref: string, insertDefaults: boolean): SwarmService {
    const state = this.cluster.current();
    const service = findService(state, ref);
    return insertDefaults ? { ...service, Spec: withDefaults(service.Spec) } : service;
  }

  list(req: ServiceListRequest): SwarmService[] {
    const state = this.cluster.current();
    const f = req.filters;
    checkFilterKeys(f, ['id', 'label', 'mode', 'name']);
    const any = (key: string, test: (v: string) => boolean) => !f.get(key)?.length || f.get(key)!.some(test);
    return state.services
      .filter(
        (s) =>
          any('id', (v) => s.ID.startsWith(v)) &&
          any('name', (v) => (s.Spec.Name ?? '').startsWith(v)) &&
          any('mode', (v) => v === modeOf(s.Spec)) &&
          (f.get('label') ?? []).every((v) => labelMatches(s.Spec.Labels ?? {}, v)),
      )
      .map((s) => (req.status ? { ...s, ServiceStatus: serviceStatus(state, s) } : s));
  }

  listTasks(filters: Filters): SwarmTask[] {
    const state = this.cluster.current();
    // `_up-to-date` is the CLI's own (swarmkit's): tasks of the service's current spec.
    checkFilterKeys(filters, [
      'desired-state',
      'id',
      'label',
      'name',
      'node',
      'service',
      'runtime',
      '_up-to-date',
    ]);
    const upToDate = (t: SwarmTask) => {
      const service = state.services.find((s) => s.ID === t.ServiceID);
      return !!service && !isOutdated(service, t);
    };
    const any = (key: string, test: (v: string) => boolean) =>
      !filters.get(key)?.length || filters.get(key)!.some(test);
    for (const v of filters.get('desired-state') ?? [])
      if (!['running', 'shutdown', 'accepted'].includes(v))
        throw new InvalidParameterError(`Invalid desired-state filter: '${v}'`);
    const serviceIds = (v: string) => {
      try {
        return findService(state, v).ID;
      } catch {
        return '';
      }
    };
    const nodeId = (v: string) => {
      try {
        return findNode(state.nodes, v).ID;
      } catch {
        return '';
      }
    };
    return state.tasks.filter(
      (t) =>
        any('id', (v) => t.ID.startsWith(v)) &&
        any('name', (v) => taskName(state, t).startsWith(v)) &&
        any('service', (v) => serviceIds(v) === t.ServiceID) &&
        any('node', (v) => nodeId(v) === t.NodeID) &&
        any('desired-state', (v) => v === t.DesiredState) &&
        any('runtime', (v) => v === 'container') &&
        any('_up-to-date', (v) => (v === 'true' || v === '1') === upToDate(t)) &&
        (filters.get('label') ?? []).every((v) => labelMatches(t.Labels, v)),
    );
  }

  inspectTask(id: string): SwarmTask {
    const state = this.cluster.current();
    const task = state.tasks.find((t) => t.ID === id) ?? state.tasks.find((t) => t.ID.startsWith(id));
    if (!task || !id) throw new NotFoundError(`task ${id} not found`);
    return task;
  }

  logs(ref: string, req: ServiceLogsRequest): LogsStream {
    const state = this.cluster.current();
    const service = findService(state, ref);
    return serviceLogs(
      this.deps.containers,
      service,
      state.tasks.filter((t) => t.ServiceID === service.ID),
      req,
    );
  }
}

function taskName(state: ClusterState, t: SwarmTask): string {
  const service = state.services.find((s) => s.ID === t.ServiceID);
  return `${service?.Spec.Name ?? ''}.${t.Slot || t.NodeID}`;
}

function serviceStatus(state: ClusterState, s: SwarmService): SwarmService['ServiceStatus'] {
  const tasks = state.tasks.filter((t) => t.ServiceID === s.ID);
  const mode = modeOf(s.Spec);
  const running = tasks.filter((t) => t.Status.State === 'running').length;
  const completed = tasks.filter(
    (t) =>
      t.Status.State === 'complete' &&
      (!s.JobStatus || t.JobIteration?.Index === s.JobStatus.JobIteration.Index),
  ).length;
  const desired =
    mode === 'replicated'
      ? (s.Spec.Mode?.Replicated?.Replicas ?? 1)
      : mode === 'replicated-job'
        ? (s.Spec.Mode?.ReplicatedJob?.MaxConcurrent ?? 1)
        : tasks.filter((t) => meantToRun(t) && !isTerminal(t)).length;
  return { RunningTasks: running, DesiredTasks: Math.max(0, desired), CompletedTasks: completed };
}
