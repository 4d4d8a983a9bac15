// Maps a container's Config and HostConfig onto an OCI runtime spec for runc. Each option has
// its own module; this file only puts their results together. The engine resolves everything
// that needs other containers or services first (namespace paths, volume host paths, the
// /etc files it generated) and passes them in.
import { mkdirSync } from 'node:fs';
import { posix } from 'node:path';
import { SystemError } from '../../api/errors';
import type { CreateBehaviours } from '../../api/versions';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import { ociCapabilities, resolveCapabilities } from './capabilities';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS, defaultMounts, shmTmpfs } from './default-mounts';
import { ociDevices } from './devices';
import type { HostFacts } from './host-facts';
import type { ImageConfigLike } from './image-config';
import { initMount, withInit } from './init-process';
import { planMounts } from './mount-plan';
import type { ResolvedMount } from './mount-types';
import { isHostUts, parseIpcMode, parseNetworkMode } from './namespace-modes';
import { type NamespacePaths, ociNamespaces } from './namespaces';
import { OCI_VERSION, type OciMount, type OciSpec } from './oci-types';
import { ociResources } from './oci-resources';
import { mergeCommand, processArgs } from './process-args';
import { processEnv } from './process-env';
import { resolveUser } from './process-user';
import { ociRlimits } from './rlimits';
import { resolveInRootfs } from './rootfs-path';
import { containerSeccomp, type SeccompChoice } from './seccomp';
import { parseSecurityOpts, type SecurityOptions } from './security-opts';
import { createBindSources, replacedByUserMount, rootfsPropagation, sortMounts } from './user-mounts';
import { validateCreate } from './validate-create';

export const DEFAULT_CGROUP_PARENT = '/svc';

/** The annotation containerd's runc v2 shim reads to serve a container from an existing shim. */
export const SHIM_GROUP_ANNOTATION = 'io.containerd.runc.v2.group';

/** The container's cgroup, below HostConfig.CgroupParent or svcd's own parent. */
export function containerCgroupPath(id: string, hostConfig: HostConfig, defaultParent?: string): string {
  return posix.join(hostConfig.CgroupParent || defaultParent || DEFAULT_CGROUP_PARENT, id);
}

export interface ContainerFiles {
  hostsPath?: string;
  resolvConfPath?: string;
  hostnamePath?: string;
}

export interface BuildSpecInput {
  /** The full container ID (64 hex digits). */
  id: string;
  config: ContainerConfig;
  hostConfig: HostConfig;
  image?: ImageConfigLike;
  /** The host path of the container's root filesystem (the mounted snapshot). */
  rootfsPath: string;
  /** How the create body is read (the request's API version's). */
  behaviours: CreateBehaviours;
  host: HostFacts;
  namespaces?: NamespacePaths;
  /**
   * The container's mounts with volumes already resolved to host paths (planMounts, then
   * resolveMounts). When omitted they are planned here, which only works without volumes.
   */
  mounts?: ResolvedMount[];
  /** The per-container /etc files the engine generated (etc-hosts.ts, resolv-conf.ts). */
  files?: ContainerFiles;
  /** The host directory to bind at /dev/shm for IpcMode shareable and container:<x>. */
  shmPath?: string;
  /** Parent of the container's cgroup when HostConfig.CgroupParent is empty. */
  defaultCgroupParent?: string;
  /** Containers with the same group share one runc shim (see SHIM_GROUP_ANNOTATION). */
  shimGroup?: string;
  /** The daemon's seccomp profile (svcd --seccomp-profile); Docker's default when absent. */
  defaultSeccomp?: SeccompChoice;
}

export interface BuiltSpec {
  spec: OciSpec;
  warnings: string[];
}

/** The hostname a container gets when its Config has none. */
export function defaultHostname(id: string, hostConfig: HostConfig, host: HostFacts): string {
  return parseNetworkMode(hostConfig.NetworkMode).kind === 'host' ? host.hostname : id.slice(0, 12);
}

function userMounts(input: BuildSpecInput, config: ContainerConfig, hostConfig: HostConfig): ResolvedMount[] {
  if (input.mounts) return input.mounts;
  const plan = planMounts({ config, hostConfig });
  if (plan.some((m) => m.Type === 'volume')) {
    throw new SystemError('volume mounts must be resolved (resolveMounts) before building the spec');
  }
  return plan as ResolvedMount[];
}

function shmMount(hostConfig: HostConfig, shmPath: string | undefined): OciMount | undefined {
  const ipc = parseIpcMode(hostConfig.IpcMode);
  switch (ipc.kind) {
    case 'none':
      return undefined;
    case 'private':
      return shmTmpfs(hostConfig.ShmSize as number);
    case 'host':
      return { destination: '/dev/shm', type: 'bind', source: '/dev/shm', options: ['rbind', 'rprivate'] };
    default:
      if (!shmPath) throw new SystemError(`the /dev/shm of IpcMode ${hostConfig.IpcMode} was not given`);
      return { destination: '/dev/shm', type: 'bind', source: shmPath, options: ['rbind', 'rprivate'] };
  }
}

function fileMounts(files: ContainerFiles | undefined, readOnly: boolean): OciMount[] {
  const entries: [string | undefined, string][] = [
    [files?.resolvConfPath, '/etc/resolv.conf'],
    [files?.hostnamePath, '/etc/hostname'],
    [files?.hostsPath, '/etc/hosts'],
  ];
  return entries.flatMap(([source, destination]) =>
    source
      ? [{ destination, type: 'bind', source, options: ['rbind', 'rprivate', ...(readOnly ? ['ro'] : [])] }]
      : [],
  );
}

function allMounts(input: BuildSpecInput, hostConfig: HostConfig, user: ResolvedMount[]): OciMount[] {
  const replaced = (m: OciMount) => replacedByUserMount(m.destination, user);
  const kernel = defaultMounts(!!hostConfig.Privileged);
  const shm = shmMount(hostConfig, input.shmPath);
  const extra = fileMounts(input.files, !!hostConfig.ReadonlyRootfs).filter((m) => !replaced(m));
  if (hostConfig.Init) extra.push(initMount(input.host.initBinary));
  return [
    ...[...kernel, ...(shm ? [shm] : [])].filter((m) => !replaced(m)),
    ...sortMounts([...user, ...extra]),
  ];
}

/** Makes the working directory in the rootfs; a file in its way fails with dockerd's words. */
export function createWorkingDir(rootfs: string, cwd: string): void {
  try {
    mkdirSync(resolveInRootfs(rootfs, cwd), { recursive: true });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const message =
      code === 'EEXIST' || code === 'ENOTDIR'
        ? `Cannot mkdir: ${cwd} is not a directory`
        : `cannot create the working directory ${cwd}: ${(err as Error).message}`;
    throw new SystemError(message, { cause: err });
  }
}

function sysctls(config: ContainerConfig, hostConfig: HostConfig): Record<string, string> | undefined {
  const result = { ...(hostConfig.Sysctls ?? {}) };
  // runtime-spec 1.0.2 has no domainname field; dockerd sets it through this sysctl.
  if (config.Domainname && !isHostUts(hostConfig.UTSMode)) result['kernel.domainname'] = config.Domainname;
  return Object.keys(result).length > 0 ? result : undefined;
}

/** Validates the create, then builds its spec (validatedSpec). */
export function buildSpec(input: BuildSpecInput): BuiltSpec {
  const { config, hostConfig, security, warnings } = validateCreate({
    config: input.config,
    hostConfig: input.hostConfig,
    behaviours: input.behaviours,
    host: input.host,
    image: input.image,
  });
  return { spec: validatedSpec({ ...input, config, hostConfig }, security), warnings };
}

/**
 * The spec of a create already validated (an engine's container record was, at its create): not
 * validated again, its security options parsed only when the validation's are not given. Creates
 * missing legacy bind sources and the working directory in the rootfs.
 */
export function validatedSpec(
  input: BuildSpecInput,
  security: SecurityOptions = parseSecurityOpts(input.hostConfig.SecurityOpt, input.host.appArmor),
): OciSpec {
  const { config, hostConfig } = input;
  const privileged = !!hostConfig.Privileged;
  const hostname = config.Hostname || defaultHostname(input.id, hostConfig, input.host);
  const caps = resolveCapabilities({
    capAdd: hostConfig.CapAdd,
    capDrop: hostConfig.CapDrop,
    privileged,
    available: input.host.capabilities,
  });
  const args = processArgs(mergeCommand(config, undefined));
  const cwd = config.WorkingDir || '/';
  const user = userMounts(input, config, hostConfig);
  createBindSources(user);
  createWorkingDir(input.rootfsPath, cwd);
  const devices = ociDevices(hostConfig.Devices, hostConfig.DeviceCgroupRules, privileged);

  const spec: OciSpec = {
    ociVersion: OCI_VERSION,
    process: {
      terminal: !!config.Tty,
      user: resolveUser(input.rootfsPath, config.User, hostConfig.GroupAdd),
      args: hostConfig.Init ? withInit(args) : args,
      env: processEnv({ env: config.Env ?? [], hostname, tty: !!config.Tty }),
      cwd,
      capabilities: ociCapabilities(caps),
      noNewPrivileges: security.noNewPrivileges,
      oomScoreAdj: hostConfig.OomScoreAdj ?? 0,
    },
    root: { path: input.rootfsPath, readonly: !!hostConfig.ReadonlyRootfs },
    mounts: allMounts(input, hostConfig, user),
    linux: {
      namespaces: ociNamespaces(config, hostConfig, input.namespaces ?? {}),
      devices: devices.devices,
      // Without a cgroup it may write (rootless, no delegation) runc gets none to make: it would
      // fail on the first mkdir. Limits were refused at create; device nodes are bound, not made.
      ...(input.host.cgroupsUnavailable
        ? { resources: { devices: [] } }
        : {
            resources: { devices: devices.rules, ...ociResources(hostConfig) },
            cgroupsPath: containerCgroupPath(input.id, hostConfig, input.defaultCgroupParent),
          }),
      maskedPaths: privileged ? [] : (hostConfig.MaskedPaths ?? DEFAULT_MASKED_PATHS),
      readonlyPaths: privileged ? [] : (hostConfig.ReadonlyPaths ?? DEFAULT_READONLY_PATHS),
    },
  };
  const rlimits = ociRlimits(hostConfig.Ulimits);
  if (rlimits.length > 0) spec.process.rlimits = rlimits;
  if (security.appArmorProfile && !privileged) spec.process.apparmorProfile = security.appArmorProfile;
  // runc applies it to the container's process and to every exec.
  const seccomp = containerSeccomp({
    own: security.seccomp,
    daemonDefault: input.defaultSeccomp,
    privileged,
    caps,
  });
  if (seccomp) spec.linux.seccomp = seccomp;
  if (!isHostUts(hostConfig.UTSMode)) spec.hostname = hostname;
  const sysctl = sysctls(config, hostConfig);
  if (sysctl) spec.linux.sysctl = sysctl;
  const propagation = rootfsPropagation(user);
  if (propagation) spec.linux.rootfsPropagation = propagation;
  if (input.shimGroup) spec.annotations = { [SHIM_GROUP_ANNOTATION]: input.shimGroup };
  return spec;
}
