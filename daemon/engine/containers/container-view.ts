// Inspect and list shapes of a container record.
import type { ContainerInspect, ContainerPort, ContainerSummary } from '../../api/container-summary-types';
import { containerConfigDefaults, hostConfigDefaults, withDefaults } from '../../api/container-defaults';
import type { MountPoint } from '../../api/container-types';
import { DEFAULT_MASKED_PATHS, DEFAULT_READONLY_PATHS } from '../../runtime/oci-spec/default-mounts';
import type { ResolvedMount } from '../../runtime/oci-spec/mount-types';
import { networkSettings } from './container-network';
import type { ContainerRecord } from './container-record';
import { statusText } from './container-state';

export function mountPoint(m: ResolvedMount): MountPoint {
  const rw = !m.ReadOnly;
  switch (m.Type) {
    case 'bind':
      return {
        Type: 'bind',
        Source: m.Source,
        Destination: m.Destination,
        Mode: rw ? '' : 'ro',
        RW: rw,
        Propagation: m.Propagation,
      };
    case 'volume':
      return {
        Type: 'volume',
        Name: m.Name,
        Source: m.Source,
        Destination: m.Destination,
        Driver: m.Driver,
        Mode: rw ? '' : 'ro',
        RW: rw,
        Propagation: '',
      };
    default:
      return { Type: 'tmpfs', Source: '', Destination: m.Destination, Mode: '', RW: rw, Propagation: '' };
  }
}

export interface Sizes {
  SizeRw?: number;
  SizeRootFs?: number;
}

function sandboxKey(record: ContainerRecord): string {
  return record.State.Pid > 0 && record.NetworkMode !== 'host' ? `/proc/${record.State.Pid}/ns/net` : '';
}

export function inspectView(
  record: ContainerRecord,
  sizes: Sizes,
  execIds: string[],
  storageDriver: string,
  logPath = '',
): ContainerInspect {
  return {
    Id: record.Id,
    Created: record.Created,
    Path: record.Path,
    Args: record.Args,
    State: record.State,
    Image: record.Image,
    ResolvConfPath: record.Files.resolvConfPath,
    HostnamePath: record.Files.hostnamePath,
    HostsPath: record.Files.hostsPath,
    LogPath: logPath,
    Name: record.Name,
    RestartCount: record.RestartCount,
    Driver: storageDriver,
    Platform: 'linux',
    MountLabel: '',
    ProcessLabel: '',
    AppArmorProfile: '',
    ExecIDs: execIds.length > 0 ? execIds : null,
    HostConfig: withDefaults(
      {
        ...hostConfigDefaults,
        // What the spec applies when none were given, as dockerd records them at create.
        MaskedPaths: record.HostConfig.Privileged ? null : DEFAULT_MASKED_PATHS,
        ReadonlyPaths: record.HostConfig.Privileged ? null : DEFAULT_READONLY_PATHS,
      },
      record.HostConfig,
    ),
    GraphDriver: { Name: storageDriver, Data: null },
    ...sizes,
    Mounts: record.Mounts.map(mountPoint),
    Config: withDefaults(containerConfigDefaults, record.Config),
    NetworkSettings: networkSettings(record, sandboxKey(record)),
  };
}

/** Each exposed port, and each published one with its host address and port, as the list shows them. */
function ports(record: ContainerRecord): ContainerPort[] {
  const keys = new Set([
    ...Object.keys(record.Config.ExposedPorts ?? {}),
    ...Object.keys(record.Ports ?? {}),
  ]);
  return [...keys].flatMap((key) => {
    const [port, proto = 'tcp'] = key.split('/');
    const PrivatePort = Number(port.split('-')[0]);
    const published = record.Endpoints && Object.keys(record.Endpoints).length ? record.Ports?.[key] : null;
    if (!published?.length) return [{ PrivatePort, Type: proto }];
    return published.map((b) => ({ IP: b.HostIp, PrivatePort, PublicPort: Number(b.HostPort), Type: proto }));
  });
}

function shellQuoteCommand(record: ContainerRecord): string {
  return [record.Path, ...record.Args].map((a) => (/\s/.test(a) ? `'${a}'` : a)).join(' ');
}

export function summaryView(
  record: ContainerRecord,
  imageName: string,
  sizes: Sizes,
  now: number,
): ContainerSummary {
  const inspect = networkSettings(record, '');
  return {
    Id: record.Id,
    Names: [record.Name],
    Image: imageName,
    ImageID: record.Image,
    Command: shellQuoteCommand(record),
    Created: Math.floor(Date.parse(record.Created) / 1000),
    Ports: ports(record),
    // The list leaves zero sizes out, as dockerd's does (inspect shows them).
    ...(sizes.SizeRw ? { SizeRw: sizes.SizeRw } : {}),
    ...(sizes.SizeRootFs ? { SizeRootFs: sizes.SizeRootFs } : {}),
    Labels: record.Config.Labels ?? {},
    State: record.State.Status,
    Status: statusText(record.State, now),
    HostConfig: { NetworkMode: record.HostConfig.NetworkMode ?? 'default' },
    NetworkSettings: { Networks: inspect.Networks },
    Mounts: record.Mounts.map(mountPoint),
  };
}
