// The namespace modes of HostConfig (PidMode, IpcMode, UTSMode, UsernsMode, CgroupnsMode,
// NetworkMode): parsing, validation with dockerd's messages, and their conflicts.
import { InvalidParameterError } from '../../api/errors';
import type { ContainerConfig, HostConfig } from '../../api/container-types';

export type PidMode = { kind: 'private' } | { kind: 'host' } | { kind: 'container'; container: string };
export type IpcMode =
  { kind: 'private' | 'shareable' | 'host' | 'none' } | { kind: 'container'; container: string };
export type NetworkMode =
  | { kind: 'host' | 'none' }
  | { kind: 'container'; container: string }
  /** bridge, default, or a custom network: a network namespace of its own. */
  | { kind: 'network'; name: string };

function containerRef(mode: string): string | undefined {
  if (!mode.startsWith('container:')) return undefined;
  const ref = mode.slice('container:'.length);
  return ref === '' || ref.includes(':') ? undefined : ref;
}

export function parsePidMode(mode: string | undefined): PidMode {
  if (!mode) return { kind: 'private' };
  if (mode === 'host') return { kind: 'host' };
  const container = containerRef(mode);
  if (container) return { kind: 'container', container };
  throw new InvalidParameterError(`invalid PID mode: ${mode}`);
}

/** An empty IpcMode is the daemon default, `private` in Docker 20.10. */
export function parseIpcMode(mode: string | undefined): IpcMode {
  if (!mode) return { kind: 'private' };
  if (mode === 'private' || mode === 'shareable' || mode === 'host' || mode === 'none') return { kind: mode };
  const container = containerRef(mode);
  if (container) return { kind: 'container', container };
  throw new InvalidParameterError(`invalid IPC mode: ${mode}`);
}

export function parseNetworkMode(mode: string | undefined, networkDisabled?: boolean): NetworkMode {
  if (networkDisabled) return { kind: 'none' };
  if (!mode || mode === 'default') return { kind: 'network', name: 'bridge' };
  if (mode === 'host' || mode === 'none') return { kind: mode };
  if (mode.startsWith('container:')) {
    const container = containerRef(mode);
    if (!container) throw new InvalidParameterError(`invalid network mode: ${mode}`);
    return { kind: 'container', container };
  }
  return { kind: 'network', name: mode };
}

export function isHostUts(mode: string | undefined): boolean {
  if (!mode) return false;
  if (mode === 'host') return true;
  throw new InvalidParameterError(`invalid UTS mode: ${mode}`);
}

export function validateUsernsMode(mode: string | undefined): void {
  if (mode && mode !== 'host') throw new InvalidParameterError(`invalid USER mode: ${mode}`);
}

/** Docker 20.10 on cgroup v1 defaults to the host's cgroup namespace. */
export function isPrivateCgroupns(mode: string | undefined): boolean {
  if (!mode || mode === 'host') return false;
  if (mode === 'private') return true;
  throw new InvalidParameterError(`invalid cgroup namespace mode: ${mode}`);
}

/** Options that make no sense with the namespace modes chosen (runconfig's conflict errors). */
export function validateModeConflicts(config: ContainerConfig, hostConfig: HostConfig): void {
  const network = parseNetworkMode(hostConfig.NetworkMode, config.NetworkDisabled);
  if (network.kind === 'container') {
    if (config.Hostname)
      throw new InvalidParameterError('Conflicting options: hostname and the network mode');
    if (hostConfig.Links?.length) {
      throw new InvalidParameterError(
        "Conflicting options: container type network can't be used with links. This would result in undefined behavior",
      );
    }
    if (hostConfig.Dns?.length)
      throw new InvalidParameterError('Conflicting options: dns and the network mode');
    if (hostConfig.ExtraHosts?.length) {
      throw new InvalidParameterError('Conflicting options: custom host-to-IP mapping and the network mode');
    }
    if (Object.keys(hostConfig.PortBindings ?? {}).length > 0 || hostConfig.PublishAllPorts) {
      throw new InvalidParameterError(
        'Conflicting options: port publishing and the container type network mode',
      );
    }
    if (config.MacAddress)
      throw new InvalidParameterError('Conflicting options: mac-address and the network mode');
  }
  if (network.kind === 'host' && hostConfig.Links?.length) {
    throw new InvalidParameterError(
      "Conflicting options: host type networking can't be used with links. This would result in undefined behavior",
    );
  }
  if (isHostUts(hostConfig.UTSMode) && config.Hostname) {
    throw new InvalidParameterError('Conflicting options: hostname and the UTS mode');
  }
}
