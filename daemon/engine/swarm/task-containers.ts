// What the swarm needs of the containers engine, and how a task becomes a container there:
// named and labelled as dockerd names and labels task containers, its config from the
// TaskTemplate's ContainerSpec.
import type { ContainerInspect } from '../../api/container-summary-types';
import type { ContainerCreateBody, Mount, PortMap } from '../../api/container-types';
import type { LogsRequest, LogsStream } from '../../api/container-stream-types';
import type { SwarmService, SwarmTask } from '../../api/swarm-types';

/** The narrow view of the containers engine the swarm is given when it is made. */
export interface TaskContainerPort {
  create(name: string, body: ContainerCreateBody): Promise<string>;
  /** Joins a created container to one more network, with its aliases there. */
  connect(id: string, network: string, aliases: string[]): Promise<void>;
  /** Pulls the image, with the registry auth given, unless this engine has it. */
  ensureImage(ref: string, auth?: string): Promise<void>;
  start(id: string): Promise<void>;
  stop(id: string, timeoutSec?: number): Promise<void>;
  remove(id: string): Promise<void>;
  /** undefined when there is no such container. */
  inspect(id: string): Promise<ContainerInspect | undefined>;
  /** Every container labelled as a task's, with that task's ID. */
  taskContainers(): Promise<Array<{ id: string; taskId: string }>>;
  /** Calls `listener` with the container's ID whenever a task container's state changes. */
  watch(listener: (containerId: string) => void): () => void;
  logs(id: string, req: LogsRequest): LogsStream;
}

export const taskLabel = 'com.docker.swarm.task.id';

/** `<service>.<slot>.<task id>`, or `<service>.<node id>.<task id>` for a global service's. */
export function taskContainerName(service: SwarmService, task: SwarmTask): string {
  return `${service.Spec.Name}.${task.Slot || task.NodeID}.${task.ID}`;
}

/** Swarm's `IP host...` hosts lines as Docker's `host:IP` extra hosts. */
function extraHosts(lines: string[] = []): string[] {
  return lines.flatMap((line) => {
    const [ip, ...names] = line.trim().split(/\s+/);
    // Docker accepts `host:IP` from the CLI's --host too; keep those as they are.
    return names.length ? names.map((n) => `${n}:${ip}`) : [line];
  });
}

function mountsOf(task: SwarmTask, files: Mount[]): Mount[] {
  return [...(task.Spec.ContainerSpec?.Mounts ?? []).map((m) => ({ Type: 'volume', ...m })), ...files];
}

function portBindings(service: SwarmService): {
  ports: PortMap;
  exposed: Record<string, Record<string, never>>;
} {
  const ports: PortMap = {};
  const exposed: Record<string, Record<string, never>> = {};
  for (const p of service.Endpoint.Ports ?? service.Endpoint.Spec.Ports ?? []) {
    const key = `${p.TargetPort}/${p.Protocol ?? 'tcp'}`;
    exposed[key] = {};
    // An ingress port is the swarm's own listener (ingress-proxy.ts); a host one the task's.
    if (p.PublishMode === 'host')
      (ports[key] ??= [])!.push({ HostIp: '', HostPort: p.PublishedPort ? String(p.PublishedPort) : '' });
  }
  return { ports, exposed };
}

export interface TaskContainerInputs {
  service: SwarmService;
  task: SwarmTask;
  /** Secrets and configs as read-only binds of files made for this task. */
  files: Mount[];
  /** The network the container is created on, and its aliases there. */
  network: { name: string; aliases: string[] } | undefined;
}

/** The create body of a task's container. */
export function taskContainerBody({
  service,
  task,
  files,
  network,
}: TaskContainerInputs): ContainerCreateBody {
  const spec = task.Spec.ContainerSpec ?? {};
  const limits = task.Spec.Resources?.Limits ?? {};
  const { ports, exposed } = portBindings(service);
  const taskName = taskContainerName(service, task);
  return {
    Image: spec.Image,
    Hostname: spec.Hostname,
    Env: spec.Env,
    Cmd: spec.Args,
    Entrypoint: spec.Command,
    WorkingDir: spec.Dir,
    User: spec.User,
    Tty: spec.TTY,
    OpenStdin: spec.OpenStdin,
    StopSignal: spec.StopSignal,
    StopTimeout: spec.StopGracePeriod === undefined ? undefined : Math.ceil(spec.StopGracePeriod / 1e9),
    Healthcheck: spec.HealthCheck,
    ExposedPorts: exposed,
    Labels: {
      ...spec.Labels,
      'com.docker.swarm.node.id': task.NodeID ?? '',
      'com.docker.swarm.service.id': service.ID,
      'com.docker.swarm.service.name': service.Spec.Name ?? '',
      'com.docker.swarm.task': '',
      'com.docker.swarm.task.id': task.ID,
      'com.docker.swarm.task.name': taskName,
    },
    HostConfig: {
      Mounts: mountsOf(task, files),
      PortBindings: ports,
      ExtraHosts: extraHosts(spec.Hosts),
      Dns: spec.DNSConfig?.Nameservers,
      DnsSearch: spec.DNSConfig?.Search,
      DnsOptions: spec.DNSConfig?.Options,
      ReadonlyRootfs: spec.ReadOnly,
      Init: spec.Init ?? undefined,
      Sysctls: spec.Sysctls,
      CapAdd: spec.CapabilityAdd,
      CapDrop: spec.CapabilityDrop,
      Ulimits: spec.Ulimits,
      GroupAdd: spec.Groups,
      NanoCpus: limits.NanoCPUs,
      Memory: limits.MemoryBytes,
      PidsLimit: limits.Pids,
      LogConfig: task.Spec.LogDriver?.Name
        ? { Type: task.Spec.LogDriver.Name, Config: task.Spec.LogDriver.Options ?? {} }
        : undefined,
      NetworkMode: network?.name,
    },
    NetworkingConfig: network
      ? { EndpointsConfig: { [network.name]: { Aliases: network.aliases } } }
      : undefined,
  };
}
