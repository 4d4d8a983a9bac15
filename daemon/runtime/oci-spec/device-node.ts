// Reads a host device node: its type and the major/minor numbers encoded in st_rdev.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

export interface DeviceNode {
  path: string;
  type: 'c' | 'b';
  major: number;
  minor: number;
  fileMode: number;
  uid: number;
  gid: number;
}

/** Linux's dev_t layout (gnu_dev_major / gnu_dev_minor). */
function splitRdev(rdev: bigint): { major: number; minor: number } {
  const major = ((rdev >> 8n) & 0xfffn) | ((rdev >> 32n) & ~0xfffn);
  const minor = (rdev & 0xffn) | ((rdev >> 12n) & ~0xffn);
  return { major: Number(major), minor: Number(minor) };
}

/** The device at `path` (symlinks followed), or undefined when it is not a device node. */
export function readDeviceNode(path: string): DeviceNode | undefined {
  const stat = statSync(path, { bigint: true });
  const type = stat.isCharacterDevice() ? 'c' : stat.isBlockDevice() ? 'b' : undefined;
  if (!type) return undefined;
  return {
    path,
    type,
    ...splitRdev(stat.rdev),
    fileMode: Number(stat.mode & 0o7777n),
    uid: Number(stat.uid),
    gid: Number(stat.gid),
  };
}

/** Directories under /dev that hold no devices of the host's own (runc's HostDevices skips them). */
const SKIPPED_DIRS = new Set(['pts', 'shm', 'fd', 'mqueue', '.lxc', '.lxd-mounts', '.udev']);

/** Every device node under `dir`, for Privileged containers and directory device mappings. */
export function listDeviceNodes(dir: string): DeviceNode[] {
  const nodes: DeviceNode[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIPPED_DIRS.has(entry.name)) nodes.push(...listDeviceNodes(path));
      continue;
    }
    if (path === '/dev/console' || !(entry.isCharacterDevice() || entry.isBlockDevice())) continue;
    const node = readDeviceNode(path);
    if (node) nodes.push(node);
  }
  return nodes;
}
