// Facts about the operating system that /info and /version report, read once at startup. What
// cgroups can enforce is the runtime's to say (runtime/oci-spec/host-facts.ts).
import { existsSync, readFileSync } from 'node:fs';
import { arch, cpus, hostname, release, totalmem } from 'node:os';

export interface OsFacts {
  hostname: string;
  kernelVersion: string;
  operatingSystem: string;
  osVersion: string;
  architecture: string;
  ncpu: number;
  memTotal: number;
  cgroupVersion: '1' | '2';
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

export function readOsFacts(): OsFacts {
  const os = osRelease();
  return {
    hostname: hostname(),
    kernelVersion: release(),
    operatingSystem: os.PRETTY_NAME ?? 'Linux',
    osVersion: os.VERSION_ID ?? '',
    architecture: arch() === 'x64' ? 'x86_64' : arch(),
    ncpu: cpus().length,
    memTotal: totalmem(),
    cgroupVersion: existsSync('/sys/fs/cgroup/cgroup.controllers') ? '2' : '1',
    ipv4Forwarding: readFlag('/proc/sys/net/ipv4/ip_forward'),
    bridgeNfIptables: readFlag('/proc/sys/net/bridge/bridge-nf-call-iptables'),
    bridgeNfIp6tables: readFlag('/proc/sys/net/bridge/bridge-nf-call-ip6tables'),
  };
}
