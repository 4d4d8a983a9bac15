// Devices: Docker's default device cgroup rules, HostConfig.Devices (a node or a directory of
// nodes), DeviceCgroupRules, and Privileged (every host device, every access).
import { relative } from 'node:path';
import { InvalidParameterError } from '../../api/errors';
import type { DeviceMapping } from '../../api/container-types';
import { type DeviceNode, listDeviceNodes, readDeviceNode } from './device-node';
import type { OciDevice, OciDeviceRule } from './oci-types';

const rule = (type: 'c' | 'b', major: number | undefined, minor: number | undefined): OciDeviceRule => ({
  allow: true,
  type,
  ...(major === undefined ? {} : { major }),
  ...(minor === undefined ? {} : { minor }),
  access: type === 'b' || major === undefined ? 'm' : 'rwm',
});

/** Deny all, then mknod of anything and the usual character devices (null, zero, tty, pts...). */
export const DEFAULT_DEVICE_RULES: OciDeviceRule[] = [
  { allow: false, access: 'rwm' },
  rule('c', undefined, undefined),
  rule('b', undefined, undefined),
  rule('c', 1, 3),
  rule('c', 1, 8),
  rule('c', 1, 7),
  rule('c', 5, 0),
  rule('c', 1, 5),
  rule('c', 1, 9),
  rule('c', 5, 1),
  { allow: true, type: 'c', major: 136, access: 'rwm' },
  rule('c', 5, 2),
  rule('c', 10, 200),
];

const devicePermissions = /^[rwm]{1,3}$/;
const cgroupRulePattern = /^([acb]) ([0-9]+|\*):([0-9]+|\*) ([rwm]{1,3})$/;

function validPermissions(mode: string): boolean {
  return devicePermissions.test(mode) && new Set(mode).size === mode.length;
}

export function validateDevices(
  devices: DeviceMapping[] | null | undefined,
  rules: string[] | null | undefined,
): void {
  for (const device of devices ?? []) {
    const mode = device.CgroupPermissions || 'rwm';
    if (!validPermissions(mode))
      throw new InvalidParameterError(`${device.PathOnHost} invalid device mode: ${mode}`);
    mappedNodes(device);
  }
  for (const text of rules ?? []) parseCgroupRule(text);
}

export function parseCgroupRule(text: string): OciDeviceRule {
  const match = cgroupRulePattern.exec(text);
  if (!match || !validPermissions(match[4]))
    throw new InvalidParameterError(`invalid device cgroup format '${text}'`);
  return {
    allow: true,
    type: match[1] as 'a' | 'c' | 'b',
    ...(match[2] === '*' ? {} : { major: Number(match[2]) }),
    ...(match[3] === '*' ? {} : { minor: Number(match[3]) }),
    access: match[4],
  };
}

function gatherError(path: string, reason: string): InvalidParameterError {
  return new InvalidParameterError(
    `error gathering device information while adding custom device "${path}": ${reason}`,
  );
}

/** The nodes a mapping brings in, with their paths inside the container. */
function mappedNodes(device: DeviceMapping): { node: DeviceNode; target: string }[] {
  const target = device.PathInContainer || device.PathOnHost;
  let single: DeviceNode | undefined;
  try {
    single = readDeviceNode(device.PathOnHost);
    if (single) return [{ node: single, target }];
    const nodes = listDeviceNodes(device.PathOnHost);
    return nodes.map((node) => ({ node, target: `${target}/${relative(device.PathOnHost, node.path)}` }));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw gatherError(device.PathOnHost, 'no such file or directory');
    if (code === 'ENOTDIR') throw gatherError(device.PathOnHost, 'not a device node');
    throw err;
  }
}

function ociDevice(node: DeviceNode, path: string): OciDevice {
  return {
    type: node.type,
    path,
    major: node.major,
    minor: node.minor,
    fileMode: node.fileMode,
    uid: node.uid,
    gid: node.gid,
  };
}

export interface DeviceSetup {
  devices: OciDevice[];
  rules: OciDeviceRule[];
}

export function ociDevices(
  devices: DeviceMapping[] | null | undefined,
  cgroupRules: string[] | null | undefined,
  privileged: boolean,
): DeviceSetup {
  if (privileged) {
    return {
      devices: listDeviceNodes('/dev').map((node) => ociDevice(node, node.path)),
      rules: [{ allow: true, access: 'rwm' }],
    };
  }
  const result: DeviceSetup = { devices: [], rules: [...DEFAULT_DEVICE_RULES] };
  for (const device of devices ?? []) {
    for (const { node, target } of mappedNodes(device)) {
      result.devices.push(ociDevice(node, target));
      result.rules.push({
        allow: true,
        type: node.type,
        major: node.major,
        minor: node.minor,
        access: device.CgroupPermissions || 'rwm',
      });
    }
  }
  for (const text of cgroupRules ?? []) result.rules.push(parseCgroupRule(text));
  return result;
}
