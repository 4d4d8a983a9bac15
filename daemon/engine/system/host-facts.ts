// Facts about the host that /info and /version report, read once from the kernel and /etc.
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, hostname, release, totalmem } from 'node:os';

export interface HostFacts {
  hostname: string;
  kernelVersion: string;
  operatingSystem: string;
  osVersion: string;
  architecture: string;
  ncpu: number;
  memTotal: number;
  cgroupVersion: '1' | '2';
  /** Which cgroup v1 controllers this kernel offers limits through. */
  memoryLimit: boolean;
  swapLimit: boolean;
  kernelMemory: boolean;
  cpuCfs: boolean;
  cpuShares: boolean;
  cpuset: boolean;
  pidsLimit: boolean;
  ipv4Forwarding: boolean;
  bridgeNfIptables: boolean;
  bridgeNfIp6tables: boolean;
}

function osRelease(): Record<string, string> {
  try {
    const out: Record<string, string> = {};
    for (const line of readFileSync('/etc/os-release', 'utf8').split('\n')) {
      const m = /^([A-Z_]+)=(.*)$/.exec(line);
      if (m) out[m[1]] = m[2].replace(/^"(.*)"$/, '$1');
    }
    return out;
  } catch {
    return {};
  }
}

function readFlag(path: string): boolean {
  try {
    return readFileSync(path, 'utf8').trim() === '1';
  } catch {
    return false;
  }
}

/** Maps Node's architecture names to the Go/OCI ones Docker reports. */
export function goArch(nodeArch = arch()): string {
  return (
    (
      { x64: 'amd64', arm64: 'arm64', arm: 'arm', ia32: '386', ppc64: 'ppc64le', s390x: 's390x' } as Record<
        string,
        string
      >
    )[nodeArch] ?? nodeArch
  );
}

export function readHostFacts(): HostFacts {
  const os = osRelease();
  const v1 = (p: string) => existsSync(`/sys/fs/cgroup/${p}`);
  const unifiedOnly = existsSync('/sys/fs/cgroup/cgroup.controllers');
  return {
    hostname: hostname(),
    kernelVersion: release(),
    operatingSystem: os.PRETTY_NAME ?? 'Linux',
    osVersion: os.VERSION_ID ?? '',
    architecture: arch() === 'x64' ? 'x86_64' : arch(),
    ncpu: cpus().length,
    memTotal: totalmem(),
    cgroupVersion: unifiedOnly ? '2' : '1',
    memoryLimit: unifiedOnly || v1('memory/memory.limit_in_bytes'),
    swapLimit: unifiedOnly || v1('memory/memory.memsw.limit_in_bytes'),
    kernelMemory: v1('memory/memory.kmem.limit_in_bytes'),
    cpuCfs: unifiedOnly || v1('cpu/cpu.cfs_quota_us'),
    cpuShares: unifiedOnly || v1('cpu/cpu.shares'),
    cpuset: unifiedOnly || v1('cpuset/cpuset.cpus'),
    pidsLimit: unifiedOnly || v1('pids'),
    ipv4Forwarding: readFlag('/proc/sys/net/ipv4/ip_forward'),
    bridgeNfIptables: readFlag('/proc/sys/net/bridge/bridge-nf-call-iptables'),
    bridgeNfIp6tables: readFlag('/proc/sys/net/bridge/bridge-nf-call-ip6tables'),
  };
}
