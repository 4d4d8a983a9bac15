// What this host can enforce, read once from /sys and /proc, as dockerd's sysinfo does. The
// spec builders take it as a parameter so that tests can describe any host.
import { access, readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
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
  /** /proc/sys/kernel/cap_last_cap: the highest capability number this kernel knows. */
  lastCap: number;
  hostname: string;
  /** tini on the host, bind-mounted as the container's init; undefined when not installed. */
  initBinary?: string;
  /** Whether the kernel has AppArmor enabled (profiles other than unconfined need it). */
  appArmor: boolean;
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

/** Reads the cgroup v1 hierarchy under `cgroupRoot` (tests may point it elsewhere). */
export async function readCgroupSupport(cgroupRoot = '/sys/fs/cgroup'): Promise<CgroupSupport> {
  const has = (controller: string, file: string) => exists(join(cgroupRoot, controller, file));
  const [
    memoryLimit,
    swapLimit,
    memoryReservation,
    memorySwappiness,
    oomKillDisable,
    cpuShares,
    cpuCfs,
    cpuRealtime,
    cpuset,
    blkioWeight,
    blkioWeightDevice,
    blkioReadBps,
    blkioWriteBps,
    blkioReadIOps,
    blkioWriteIOps,
    pids,
  ] = await Promise.all([
    has('memory', 'memory.limit_in_bytes'),
    has('memory', 'memory.memsw.limit_in_bytes'),
    has('memory', 'memory.soft_limit_in_bytes'),
    has('memory', 'memory.swappiness'),
    has('memory', 'memory.oom_control'),
    has('cpu', 'cpu.shares'),
    has('cpu', 'cpu.cfs_quota_us'),
    has('cpu', 'cpu.rt_runtime_us'),
    has('cpuset', 'cpuset.cpus'),
    has('blkio', 'blkio.weight'),
    has('blkio', 'blkio.weight_device'),
    has('blkio', 'blkio.throttle.read_bps_device'),
    has('blkio', 'blkio.throttle.write_bps_device'),
    has('blkio', 'blkio.throttle.read_iops_device'),
    has('blkio', 'blkio.throttle.write_iops_device'),
    // The root cgroup has no pids.max; the controller being mounted is what counts.
    has('pids', 'cgroup.procs'),
  ]);
  return {
    memoryLimit,
    swapLimit,
    memoryReservation,
    memorySwappiness,
    oomKillDisable,
    cpuShares,
    cpuCfs,
    cpuRealtime,
    cpuset,
    blkioWeight,
    blkioWeightDevice,
    blkioReadBps,
    blkioWriteBps,
    blkioReadIOps,
    blkioWriteIOps,
    pids,
    kernelMemory: false,
  };
}

export async function readHostFacts(cgroupRoot = '/sys/fs/cgroup'): Promise<HostFacts> {
  const onlineCpus = await readTrimmed('/sys/devices/system/cpu/online', '0');
  const [cgroup, cpusetCpus, cpusetMems, lastCap, initBinary, appArmor] = await Promise.all([
    readCgroupSupport(cgroupRoot),
    readTrimmed(join(cgroupRoot, 'cpuset', 'cpuset.cpus'), onlineCpus),
    readTrimmed(join(cgroupRoot, 'cpuset', 'cpuset.mems'), '0'),
    readTrimmed('/proc/sys/kernel/cap_last_cap', '40'),
    firstExisting(INIT_BINARY_CANDIDATES),
    readTrimmed('/sys/module/apparmor/parameters/enabled', 'N'),
  ]);
  return {
    cgroup,
    cpusetCpus,
    cpusetMems,
    cpuCount: parseCpuList(onlineCpus)?.length ?? 1,
    lastCap: Number(lastCap),
    hostname: hostname(),
    initBinary,
    appArmor: appArmor === 'Y',
  };
}
