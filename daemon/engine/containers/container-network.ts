// The network modes svcd has while it has no container networks: host (the host's namespace), none,
// and the default (bridge/default), which for now is an isolated namespace with loopback only;
// container:<x> joins another container's namespace. Named networks do not exist yet.
import type { EndpointSettings } from '../../api/container-types';
import type { NetworkSettingsJson } from '../../api/container-summary-types';
import { NotFoundError } from '../../api/errors';
import { parseNetworkMode, type NetworkMode } from '../../runtime/oci-spec/namespace-modes';

export function checkNetworkMode(mode: string | undefined, networkDisabled?: boolean): NetworkMode {
  const parsed = parseNetworkMode(mode, networkDisabled);
  if (parsed.kind === 'network' && parsed.name !== 'bridge') {
    throw new NotFoundError(`network ${parsed.name} not found`);
  }
  return parsed;
}

/**
 * NetworkSettings as they really are: no endpoint, address or port is claimed, since the
 * default namespace only has loopback for now. Host and none are named as Docker names them.
 */
export function networkSettings(mode: NetworkMode, sandboxKey: string): NetworkSettingsJson {
  const networks: Record<string, EndpointSettings> = {};
  if (mode.kind === 'host' || mode.kind === 'none') {
    networks[mode.kind] = {
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
  }
  return {
    Bridge: '',
    SandboxID: '',
    HairpinMode: false,
    LinkLocalIPv6Address: '',
    LinkLocalIPv6PrefixLen: 0,
    Ports: {},
    SandboxKey: sandboxKey,
    SecondaryIPAddresses: null,
    SecondaryIPv6Addresses: null,
    EndpointID: '',
    Gateway: '',
    GlobalIPv6Address: '',
    GlobalIPv6PrefixLen: 0,
    IPAddress: '',
    IPPrefixLen: 0,
    IPv6Gateway: '',
    MacAddress: '',
    Networks: networks,
  };
}
