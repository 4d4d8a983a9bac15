// linux.namespaces from the namespace modes. Namespaces of other containers (container:<x>)
// and of the network layer arrive as paths resolved by the engine; nothing is looked up here.
import { SystemError } from '../../api/errors';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import {
  isHostUts,
  isPrivateCgroupns,
  parseIpcMode,
  parseNetworkMode,
  parsePidMode,
} from './namespace-modes';
import type { OciNamespace } from './oci-types';

export interface NamespacePaths {
  /** The network namespace made for this container (bridge/custom networks) or the one of container:<x>. */
  network?: string;
  /** /proc/<pid>/ns/pid of the PidMode container:<x>. */
  pid?: string;
  /** /proc/<pid>/ns/ipc of the IpcMode container:<x>. */
  ipc?: string;
}

function joined(type: OciNamespace['type'], path: string | undefined, mode: string): OciNamespace {
  if (!path) throw new SystemError(`${type} namespace of ${mode} was not resolved before building the spec`);
  return { type, path };
}

export function ociNamespaces(
  config: Pick<ContainerConfig, 'NetworkDisabled'>,
  hostConfig: HostConfig,
  paths: NamespacePaths,
): OciNamespace[] {
  const namespaces: OciNamespace[] = [{ type: 'mount' }];

  const pid = parsePidMode(hostConfig.PidMode);
  if (pid.kind === 'private') namespaces.push({ type: 'pid' });
  if (pid.kind === 'container') namespaces.push(joined('pid', paths.pid, hostConfig.PidMode ?? ''));

  const ipc = parseIpcMode(hostConfig.IpcMode);
  if (ipc.kind === 'container') namespaces.push(joined('ipc', paths.ipc, hostConfig.IpcMode ?? ''));
  else if (ipc.kind !== 'host') namespaces.push({ type: 'ipc' });

  if (!isHostUts(hostConfig.UTSMode)) namespaces.push({ type: 'uts' });

  const network = parseNetworkMode(hostConfig.NetworkMode, config.NetworkDisabled);
  if (network.kind === 'container')
    namespaces.push(joined('network', paths.network, hostConfig.NetworkMode ?? ''));
  else if (network.kind === 'network' && paths.network)
    namespaces.push({ type: 'network', path: paths.network });
  else if (network.kind !== 'host') namespaces.push({ type: 'network' });

  if (isPrivateCgroupns(hostConfig.CgroupnsMode)) namespaces.push({ type: 'cgroup' });
  return namespaces;
}
