// A container's network modes and what inspect shows of them: host, none, container:<x>, or
// networks (the default bridge or user networks), whose endpoints exist while it runs.
import type { EndpointSettings } from '../../api/container-types';
import type { NetworkSettingsJson } from '../../api/container-summary-types';
import { parseNetworkMode, type NetworkMode } from '../../runtime/oci-spec/namespace-modes';
import type { ContainerRecord } from './container-record';

export function checkNetworkMode(mode: string | undefined, networkDisabled?: boolean): NetworkMode {
  return parseNetworkMode(mode, networkDisabled);
}

const emptyEndpoint: Required<Omit<EndpointSettings, 'IPAMConfig' | 'Links' | 'Aliases' | 'DriverOpts'>> &
  Pick<EndpointSettings, 'IPAMConfig' | 'Links' | 'Aliases' | 'DriverOpts'> = {
  IPAMConfig: null,
  Links: null,
  Aliases: null,
  NetworkID: '',
  EndpointID: '',
  Gateway: '',
  IPAddress: '',
  IPPrefixLen: 0,
  IPv6Gateway: '',
  GlobalIPv6Address: '',
  GlobalIPv6PrefixLen: 0,
  MacAddress: '',
  DriverOpts: null,
};

/** NetworkSettings from the record: each network it joins, with the live endpoint while running. */
export function networkSettings(record: ContainerRecord, sandboxKey: string): NetworkSettingsJson {
  const mode = parseNetworkMode(record.HostConfig.NetworkMode, record.Config.NetworkDisabled);
  const networks: Record<string, EndpointSettings> = {};
  if (mode.kind === 'host' || mode.kind === 'none') networks[mode.kind] = { ...emptyEndpoint };
  for (const [name, attachment] of Object.entries(record.Networks ?? {})) {
    const live = record.Endpoints?.[name];
    networks[name] = {
      ...emptyEndpoint,
      IPAMConfig: attachment.IPAMConfig,
      Links: attachment.Links ?? null,
      Aliases: attachment.Aliases,
      NetworkID: attachment.NetworkID,
      DriverOpts: attachment.DriverOpts ?? null,
      ...(live
        ? {
            EndpointID: live.EndpointID,
            Gateway: live.Gateway,
            IPAddress: live.IPAddress,
            IPPrefixLen: live.IPPrefixLen,
            IPv6Gateway: live.IPv6Gateway ?? '',
            GlobalIPv6Address: live.GlobalIPv6Address ?? '',
            GlobalIPv6PrefixLen: live.GlobalIPv6PrefixLen ?? 0,
            MacAddress: live.MacAddress,
          }
        : {}),
    };
  }
  // The top-level fields are the default bridge's, as dockerd shows them.
  const bridge = record.Endpoints?.bridge;
  return {
    Bridge: '',
    SandboxID: '',
    HairpinMode: false,
    LinkLocalIPv6Address: '',
    LinkLocalIPv6PrefixLen: 0,
    Ports: record.Endpoints && Object.keys(record.Endpoints).length ? (record.Ports ?? {}) : {},
    SandboxKey: sandboxKey,
    SecondaryIPAddresses: null,
    SecondaryIPv6Addresses: null,
    EndpointID: bridge?.EndpointID ?? '',
    Gateway: bridge?.Gateway ?? '',
    GlobalIPv6Address: bridge?.GlobalIPv6Address ?? '',
    GlobalIPv6PrefixLen: bridge?.GlobalIPv6PrefixLen ?? 0,
    IPAddress: bridge?.IPAddress ?? '',
    IPPrefixLen: bridge?.IPPrefixLen ?? 0,
    IPv6Gateway: bridge?.IPv6Gateway ?? '',
    MacAddress: bridge?.MacAddress ?? '',
    Networks: networks,
  };
}
