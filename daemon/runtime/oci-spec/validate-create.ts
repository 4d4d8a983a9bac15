// Everything about a create request that can be refused before any resource is allocated:
// each option's own checks, run in one place, returning the normalised Config and HostConfig
// (what svcd stores and inspect shows) and the warnings for the create response.
import { InvalidParameterError } from '../../api/errors';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import type { CreateBehaviours } from '../../api/versions';
import { resolveCapabilities } from './capabilities';
import { validateContainerName } from './container-name';
import { validateDevices } from './devices';
import { validateExtraHosts } from './etc-hosts';
import { validateHealthcheck } from './healthcheck';
import type { HostFacts } from './host-facts';
import { normalizeHostname, validateHostname } from './hostname';
import { type ImageConfigLike, mergeImageConfig } from './image-config';
import { initMount } from './init-process';
import { validateLogConfig } from './log-config';
import { parseVolumesFrom, planMounts } from './mount-plan';
import {
  isHostUts,
  isPrivateCgroupns,
  parseIpcMode,
  parseNetworkMode,
  parsePidMode,
  validateModeConflicts,
  validateUsernsMode,
} from './namespace-modes';
import { validatePorts } from './ports';
import { mergeCommand, processArgs } from './process-args';
import { validateEnv } from './process-env';
import { validateAutoRemove, validateRestartPolicy } from './restart-policy';
import { validateDns } from './resolv-conf';
import { validateUlimits } from './rlimits';
import { parseSecurityOpts, securityOptWarnings, type SecurityOptions } from './security-opts';
import { parseSignal } from './signals';
import { validateSysctls } from './sysctls';
import { validateHostResources } from './validate-resources';

export interface OciCreateRequest {
  /** The `name` query parameter, if any. */
  name?: string;
  /** Made by the swarm for a task: its name has dockerd's dots. */
  swarmTask?: boolean;
  config: ContainerConfig;
  hostConfig: HostConfig;
  /** How the request's API version reads the body. */
  behaviours: CreateBehaviours;
  host: HostFacts;
  /** The image's config, merged into the container's as dockerd does; undefined skips that. */
  image?: ImageConfigLike;
}

export interface ValidatedCreate {
  /** The name without its leading slash, when one was given. */
  name?: string;
  config: ContainerConfig;
  hostConfig: HostConfig;
  /** HostConfig.SecurityOpt parsed, for the spec (parsed once per request). */
  security: SecurityOptions;
  warnings: string[];
}

function checkConfig(
  config: ContainerConfig,
  behaviours: CreateBehaviours,
  image: ImageConfigLike | undefined,
): void {
  if (behaviours.checkHostname) validateHostname(config.Hostname ?? '');
  if (config.WorkingDir && !config.WorkingDir.startsWith('/')) {
    throw new InvalidParameterError(
      `the working directory '${config.WorkingDir}' is invalid, it needs to be an absolute path`,
    );
  }
  validateEnv(config.Env);
  if (config.StopSignal !== undefined && config.StopSignal !== '') parseSignal(config.StopSignal);
  validateHealthcheck(config.Healthcheck);
  // Older clients could create a container without a command (its start failed).
  if (image && behaviours.requireCommand) processArgs(mergeCommand(config, image));
}

function refuseUnsupported(hostConfig: HostConfig): void {
  if (hostConfig.Runtime && hostConfig.Runtime !== 'runc') {
    throw new InvalidParameterError(`Unknown runtime specified ${hostConfig.Runtime}`);
  }
  if (hostConfig.Isolation && hostConfig.Isolation !== 'default') {
    throw new InvalidParameterError(
      `Invalid isolation: ${JSON.stringify(hostConfig.Isolation)} - linux only supports 'default'`,
    );
  }
  if (Object.keys(hostConfig.StorageOpt ?? {}).length > 0) {
    throw new InvalidParameterError(
      "--storage-opt is supported only for overlay over xfs with 'pquota' mount option",
    );
  }
  for (const request of hostConfig.DeviceRequests ?? []) {
    const caps = (request.Capabilities ?? []).map((c) => `[${c.join(' ')}]`).join(' ');
    throw new InvalidParameterError(
      `could not select device driver ${JSON.stringify(request.Driver ?? '')} with capabilities: [${caps}]`,
    );
  }
}

function checkNamespaces(config: ContainerConfig, hostConfig: HostConfig): void {
  parsePidMode(hostConfig.PidMode);
  const ipc = parseIpcMode(hostConfig.IpcMode);
  const network = parseNetworkMode(hostConfig.NetworkMode, config.NetworkDisabled);
  const hostUts = isHostUts(hostConfig.UTSMode);
  validateUsernsMode(hostConfig.UsernsMode);
  isPrivateCgroupns(hostConfig.CgroupnsMode);
  validateModeConflicts(config, hostConfig);
  validateSysctls(hostConfig.Sysctls, {
    hostNetwork: network.kind === 'host',
    hostIpc: ipc.kind === 'host',
    hostUts,
  });
}

export function validateCreate(request: OciCreateRequest): ValidatedCreate {
  const name = request.name ? validateContainerName(request.name, request.swarmTask) : undefined;
  const identity = normalizeHostname(request.config, request.behaviours.splitDottedHostname);
  const config = mergeImageConfig({ ...structuredClone(request.config), ...identity }, request.image);
  checkConfig(config, request.behaviours, request.image);

  const input = structuredClone(request.hostConfig);
  // Older clients removed the container themselves; dockerd ignores AutoRemove for them.
  if (!request.behaviours.honourAutoRemove) input.AutoRemove = false;
  refuseUnsupported(input);
  validatePorts(config.ExposedPorts, input.PortBindings);
  validateRestartPolicy(input.RestartPolicy);
  validateAutoRemove(input.AutoRemove, input.RestartPolicy);
  const logConfig = validateLogConfig(input.LogConfig);
  const security = parseSecurityOpts(input.SecurityOpt, request.host.appArmor);
  resolveCapabilities({
    capAdd: input.CapAdd,
    capDrop: input.CapDrop,
    privileged: input.Privileged,
    available: request.host.capabilities,
  });
  validateUlimits(input.Ulimits);
  checkNamespaces(config, input);
  planMounts({ config, hostConfig: input });
  for (const entry of input.VolumesFrom ?? []) parseVolumesFrom(entry);
  validateDevices(input.Devices, input.DeviceCgroupRules);
  validateExtraHosts(input.ExtraHosts);
  validateDns(input.Dns);
  if (input.Init) initMount(request.host.initBinary);

  const { resources: hostConfig, warnings } = validateHostResources(input, request.host);
  hostConfig.LogConfig = logConfig;
  return { name, config, hostConfig, security, warnings: [...warnings, ...securityOptWarnings(security)] };
}
