// A service spec as swarmkit checks it on create and update, the defaults `insertDefaults`
// shows, and the references (secrets, configs, networks) resolved to IDs.
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type { FileReference, ServiceSpec, SwarmService, UpdateConfig } from '../../api/swarm-types';
import type { ClusterState } from './cluster-state';
import { normalPlacement } from './placement';
import { findObject, type ObjectKind } from './swarm-objects';

const validName = /^[a-zA-Z0-9](?:[-_]*[A-Za-z0-9]+)*$/;
const second = 1e9;

export type ServiceModeName = 'replicated' | 'global' | 'replicated-job' | 'global-job';

export function modeOf(spec: ServiceSpec): ServiceModeName {
  const mode = spec.Mode ?? {};
  if (mode.Global) return 'global';
  if (mode.ReplicatedJob) return 'replicated-job';
  if (mode.GlobalJob) return 'global-job';
  return 'replicated';
}

const modeKeys = ['Replicated', 'Global', 'ReplicatedJob', 'GlobalJob'] as const;

/**
 * The mode with its key as dockerd reads it: Go's JSON decoding matches field names in any
 * case, and docker-py sends `{"replicated": {...}}`.
 */
function canonicalMode(mode: ServiceSpec['Mode']): ServiceSpec['Mode'] {
  if (!mode) return mode;
  return Object.fromEntries(
    Object.entries(mode).map(([k, v]) => [modeKeys.find((m) => m.toLowerCase() === k.toLowerCase()) ?? k, v]),
  );
}

function resolveFiles(state: ClusterState, kind: ObjectKind, refs: FileReference[] = []): FileReference[] {
  const idKey = kind === 'secret' ? 'SecretID' : 'ConfigID';
  const nameKey = kind === 'secret' ? 'SecretName' : 'ConfigName';
  return refs.map((ref) => {
    const wanted = ref[idKey] || ref[nameKey] || '';
    let object;
    try {
      object = findObject(state, kind, wanted);
    } catch {
      throw new InvalidParameterError(`${kind} not found: ${wanted}`);
    }
    const name = ref.File?.Name || object.Spec.Name || '';
    return {
      ...ref,
      [idKey]: object.ID,
      [nameKey]: object.Spec.Name,
      File: ref.File && { ...ref.File, Name: name },
    };
  });
}

/** Checks a spec and answers it with its references resolved, ready to store. */
export function checkServiceSpec(
  state: ClusterState,
  spec: ServiceSpec,
  resolveNetwork: (ref: string) => string,
  self?: SwarmService,
): ServiceSpec {
  const name = spec.Name ?? '';
  if (!validName.test(name) || name.length > 63)
    throw new InvalidParameterError(
      `rpc error: code = InvalidArgument desc = name must be valid as a DNS name component`,
    );
  if (state.services.some((s) => s !== self && s.Spec.Name === name))
    throw new ConflictError('rpc error: code = AlreadyExists desc = name conflicts with an existing object');
  const container = spec.TaskTemplate?.ContainerSpec;
  if (!container)
    throw new InvalidParameterError(
      'rpc error: code = InvalidArgument desc = ContainerSpec: missing in service spec',
    );
  if (!container.Image)
    throw new InvalidParameterError(
      'rpc error: code = InvalidArgument desc = ContainerSpec: image reference must be provided',
    );
  if (spec.TaskTemplate?.PluginSpec)
    throw new InvalidParameterError('svcd runs container tasks only, not plugin tasks');
  const mode = canonicalMode(spec.Mode) ?? { Replicated: { Replicas: 1 } };
  if (Object.keys(mode).length !== 1)
    throw new InvalidParameterError(
      'rpc error: code = InvalidArgument desc = exactly one service mode must be set',
    );
  if (self && modeOf(self.Spec) !== modeOf({ ...spec, Mode: mode }))
    throw new InvalidParameterError(
      'rpc error: code = InvalidArgument desc = service mode change is not allowed',
    );
  const replicas = mode.Replicated?.Replicas;
  if (replicas !== undefined && (!Number.isInteger(replicas) || replicas < 0))
    throw new InvalidParameterError(
      'rpc error: code = InvalidArgument desc = number of replicas must be non-negative',
    );
  for (const p of spec.EndpointSpec?.Ports ?? []) {
    if (!p.TargetPort)
      throw new InvalidParameterError('rpc error: code = InvalidArgument desc = TargetPort must be set');
    if (!p.PublishedPort) continue;
    const user = state.services.find(
      (s) =>
        s !== self &&
        (s.Spec.EndpointSpec?.Ports ?? []).some(
          (q) => q.PublishedPort === p.PublishedPort && (q.Protocol ?? 'tcp') === (p.Protocol ?? 'tcp'),
        ),
    );
    if (user)
      throw new InvalidParameterError(
        `rpc error: code = InvalidArgument desc = port '${p.PublishedPort}' is already in use by service '${user.Spec.Name}' (${user.ID}) as an ingress port`,
      );
  }
  if (
    spec.EndpointSpec?.Mode === 'dnsrr' &&
    spec.EndpointSpec.Ports?.some((p) => (p.PublishMode ?? 'ingress') === 'ingress')
  )
    throw new InvalidParameterError(
      "rpc error: code = InvalidArgument desc = EndpointSpec: port published with ingress mode can't be used with dnsrr mode",
    );
  const template = spec.TaskTemplate!;
  const networks = [...(template.Networks ?? spec.Networks ?? [])].map((n) => {
    try {
      return { ...n, Target: resolveNetwork(n.Target) };
    } catch (err) {
      if (err instanceof NotFoundError) throw new InvalidParameterError(`network ${n.Target} not found`);
      throw err;
    }
  });
  return {
    ...spec,
    Name: name,
    Labels: spec.Labels ?? {},
    Mode: mode,
    Networks: undefined,
    EndpointSpec: {
      Mode: spec.EndpointSpec?.Mode ?? 'vip',
      ...(spec.EndpointSpec?.Ports?.length
        ? {
            Ports: spec.EndpointSpec.Ports.map((p) => ({
              Protocol: 'tcp' as const,
              PublishMode: 'ingress' as const,
              ...p,
            })),
          }
        : {}),
    },
    TaskTemplate: {
      ...template,
      ContainerSpec: {
        ...container,
        Secrets: container.Secrets && resolveFiles(state, 'secret', container.Secrets),
        Configs: container.Configs && resolveFiles(state, 'config', container.Configs),
      },
      ...(template.Placement ? { Placement: normalPlacement(template.Placement) } : {}),
      ForceUpdate: template.ForceUpdate ?? 0,
      Runtime: template.Runtime ?? 'container',
      ...(networks.length ? { Networks: networks } : {}),
    },
  };
}

const updateDefaults: Required<Omit<UpdateConfig, 'Delay'>> & { Delay: number } = {
  Parallelism: 1,
  Delay: 0,
  FailureAction: 'pause',
  Monitor: 5 * second,
  MaxFailureRatio: 0,
  Order: 'stop-first',
};

export function updateConfigOf(spec: ServiceSpec, rollback: boolean): typeof updateDefaults {
  return { ...updateDefaults, ...(rollback ? spec.RollbackConfig : spec.UpdateConfig) };
}

export function restartPolicyOf(spec: ServiceSpec, job: boolean) {
  const p = spec.TaskTemplate?.RestartPolicy ?? {};
  return {
    // Jobs run to completion: a finished one is never started again.
    Condition: job && p.Condition !== 'none' ? 'on-failure' : (p.Condition ?? 'any'),
    Delay: p.Delay ?? 5 * second,
    MaxAttempts: p.MaxAttempts ?? 0,
    Window: p.Window ?? 0,
  };
}

/** The spec with swarmkit's defaults filled in (GET /services/{id}?insertDefaults=true). */
export function withDefaults(spec: ServiceSpec): ServiceSpec {
  const template = spec.TaskTemplate ?? {};
  return {
    ...spec,
    TaskTemplate: {
      ...template,
      ContainerSpec: {
        DNSConfig: {},
        StopGracePeriod: 10 * second,
        Isolation: 'default',
        ...template.ContainerSpec,
      },
      Resources: { Limits: {}, Reservations: {}, ...template.Resources },
      RestartPolicy: restartPolicyOf(spec, false) as NonNullable<typeof template.RestartPolicy>,
      Placement: template.Placement ?? {},
    },
    UpdateConfig: updateConfigOf(spec, false),
    RollbackConfig: updateConfigOf(spec, true),
    EndpointSpec: { Mode: 'vip', ...spec.EndpointSpec },
  };
}

/** The services that use a secret or config, by name. */
export function usersOf(state: ClusterState, kind: ObjectKind, id: string): string[] {
  const key = kind === 'secret' ? 'Secrets' : 'Configs';
  const idKey = kind === 'secret' ? 'SecretID' : 'ConfigID';
  return state.services
    .filter((s) => (s.Spec.TaskTemplate?.ContainerSpec?.[key] ?? []).some((r) => r[idKey] === id))
    .map((s) => s.Spec.Name ?? s.ID);
}
