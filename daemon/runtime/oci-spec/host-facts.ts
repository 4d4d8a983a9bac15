// What this host can enforce, read once from /sys and /proc, as dockerd's sysinfo does. The
// spec builders take it as a parameter so that tests can describe any host.
import { access, constants, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { capabilitiesInMask } from './capabilities';
import { parseCpuList } from './cpuset';

export interface CgroupSupport {
  memoryLimit: boolean;
  swapLimit: boolean;
  memoryReservation: boolean;
  memorySwappiness: boolean;
  oomKillDisable: boolean;
  cpuShares: boolean;
  cpuCfs: boolean;
  cpuRealtime: boolean;
  cpuset: boolean;
  blkioWeight: boolean;
  blkioWeightDevice: boolean;
  blkioReadBps: boolean;
  blkioWriteBps: boolean;
  blkioReadIOps: boolean;
  blkioWriteIOps: boolean;
  pids: boolean;
  /** Always false: runc 1.1 ignores kernel memory limits, and kernels from 6.1 on do too. */
  kernelMemory: boolean;
}

export interface HostFacts {
  cgroup: CgroupSupport;
  /** cpuset of the root cgroup, e.g. `0-1`. */
  cpusetCpus: string;
  cpusetMems: string;
  cpuCount: number;
  /** Capabilities svcd may grant: its own bounding set, limited to what the kernel knows. */
  capabilities: string[];
  hostname: string;
  /** tini on the host, bind-mounted as the container's init; undefined when not installed. */
  initBinary?: string;
  /** Whether the kernel has AppArmor enabled (profiles other than unconfined need it). */
  appArmor: boolean;
  /** Why no cgroup can be written (rootless without a delegated one), as a clause: limits and pause are refused. */
  cgroupsUnavailable?: string;
}

/** Debian's tini package ships both; the static one runs in any root filesystem. */
export const INIT_BINARY_CANDIDATES = ['/usr/bin/tini-static', '/usr/bin/tini'];

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

async function readTrimmed(path: string, fallback: string): Promise<string> {
  try {
    return (await readFile(path, 'utf8')).trim();
  } catch {
    return fallback;
  }
}

async function firstExisting(paths: string[]): Promise<string | undefined> {
  for (const path of paths) if (await exists(path)) return path;
  return undefined;
}

/** The file whose presence shows that each limit can be set (cgroup v1, as on this host). */
const CGROUP_PROBES: Record<
  Exclude<keyof CgroupSupport, 'kernelMemory'>,
  [controller: string, file: string]
> = {
  memoryLimit: ['memory', 'memory.limit_in_bytes'],
  swapLimit: ['memory', 'memory.memsw.limit_in_bytes'],
  memoryReservation: ['memory', 'memory.soft_limit_in_bytes'],
  memorySwappiness: ['memory', 'memory.swappiness'],
  oomKillDisable: ['memory', 'memory.oom_control'],
  cpuShares: ['cpu', 'cpu.shares'],
  cpuCfs: ['cpu', 'cpu.cfs_quota_us'],
  cpuRealtime: ['cpu', 'cpu.rt_runtime_us'],
  cpuset: ['cpuset', 'cpuset.cpus'],
  blkioWeight: ['blkio', 'blkio.weight'],
  blkioWeightDevice: ['blkio', 'blkio.weight_device'],
  blkioReadBps: ['blkio', 'blkio.throttle.read_bps_device'],
  blkioWriteBps: ['blkio', 'blkio.throttle.write_bps_device'],
  blkioReadIOps: ['blkio', 'blkio.throttle.read_iops_device'],
  blkioWriteIOps: ['blkio', 'blkio.throttle.write_iops_device'],
  // The root cgroup has no pids.max; the controller being mounted is what counts.
  pids: ['pids', 'cgroup.procs'],
};

/** Reads the cgroup v1 hierarchy under `cgroupRoot` (tests may point it elsewhere). */
export async function readCgroupSupport(cgroupRoot = '/sys/fs/cgroup'): Promise<CgroupSupport> {
  const probes = Object.entries(CGROUP_PROBES).map(
    async ([key, [controller, file]]) => [key, await exists(join(cgroupRoot, controller, file))] as const,
  );
  return {
    ...(Object.fromEntries(await Promise.all(probes)) as Record<keyof typeof CGROUP_PROBES, boolean>),
    kernelMemory: false,
  };
}

export async function readHostFacts(cgroupRoot = '/sys/fs/cgroup'): Promise<HostFacts> {
  const onlineCpus = await readTrimmed('/sys/devices/system/cpu/online', '0');
  const [cgroup, cpusetCpus, cpusetMems, lastCap, status, initBinary, appArmor] = await Promise.all([
    readCgroupSupport(cgroupRoot),
    readTrimmed(join(cgroupRoot, 'cpuset', 'cpuset.cpus'), onlineCpus),
    readTrimmed(join(cgroupRoot, 'cpuset', 'cpuset.mems'), '0'),
    readTrimmed('/proc/sys/kernel/cap_last_cap', '40'),
    readTrimmed('/proc/self/status', ''),
    firstExisting(INIT_BINARY_CANDIDATES),
    readTrimmed('/sys/module/apparmor/parameters/enabled', 'N'),
  ]);
  return {
    cgroup,
    cpusetCpus,
    cpusetMems,
    cpuCount: parseCpuList(onlineCpus)?.length ?? 1,
    capabilities: capabilitiesInMask(
      BigInt(`0x${/^CapBnd:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0'}`),
      Number(lastCap),
    ),
    hostname: hostname(),
    initBinary,
    appArmor: appArmor === 'Y',
  };
}

/** Every limit unsupported: what a rootless svcd without a delegated cgroup can enforce. */
const noCgroupSupport: CgroupSupport = Object.fromEntries(
  [...Object.keys(CGROUP_PROBES), 'kernelMemory'].map((key) => [key, false]),
) as unknown as CgroupSupport;

/**
 * A rootless svcd's cgroups: the host's facts when its user owns a delegated cgroup v2 subtree
 * (systemd's Delegate=yes), else none at all with the reason, as rootless Docker's `none` driver.
 */
export async function rootlessHostFacts(host: HostFacts, cgroupRoot = '/sys/fs/cgroup'): Promise<HostFacts> {
  if (!(await exists(join(cgroupRoot, 'cgroup.controllers')))) {
    return {
      ...host,
      cgroup: noCgroupSupport,
      cgroupsUnavailable:
        'this host has cgroup v1, which the kernel does not delegate to unprivileged users (it takes cgroup v2 with a delegated subtree)',
    };
  }
  const own = /^0::(.*)$/m.exec(await readTrimmed('/proc/self/cgroup', ''))?.[1] ?? '/';
  const delegated = await access(join(cgroupRoot, own, 'cgroup.subtree_control'), constants.W_OK).then(
    () => true,
    () => false,
  );
  if (delegated) return host;
  return {
    ...host,
    cgroup: noCgroupSupport,
    cgroupsUnavailable: `its cgroup ${own} is not delegated to this user (start it from a systemd user service with Delegate=yes)`,
  };
}
