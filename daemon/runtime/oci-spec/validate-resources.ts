// The resource part of HostConfig (also the update body): dockerd's create-time defaults, its
// checks, and warnings for what this host cannot enforce (those limits are discarded).
import { InvalidParameterError } from '../../api/errors';
import type { HostConfig, Resources } from '../../api/container-types';
import { checkBlkio } from './blkio-resources';
import { checkCpu, clampCpuShares } from './cpu-resources';
import { DEFAULT_SHM_SIZE } from './default-mounts';
import type { HostFacts } from './host-facts';
import { checkMemory, defaultMemorySwap } from './memory-resources';
import { checkPids } from './pids-resources';

export interface ResourceCheck<T> {
  resources: T;
  warnings: string[];
}

/** Checks a copy of `resources`; `update` relaxes the rules that only apply at create. */
export function validateResources<T extends Resources>(
  resources: T,
  host: HostFacts,
  update = false,
): ResourceCheck<T> {
  if (host.cgroupsUnavailable) refuseLimits(resources, host.cgroupsUnavailable);
  const r = structuredClone(resources);
  const warnings: string[] = [];
  checkMemory(r, host.cgroup, warnings, update);
  checkCpu(r, host, warnings);
  checkBlkio(r, host.cgroup, warnings);
  checkPids(r, host.cgroup, warnings);
  return { resources: r, warnings };
}

/** The limits a create or update may ask for; 0, null, empty and -1 (unlimited) ask for none. */
const limitFields = [
  'Memory',
  'MemoryReservation',
  'MemorySwap',
  'NanoCpus',
  'CpuShares',
  'CpuPeriod',
  'CpuQuota',
  'CpuRealtimePeriod',
  'CpuRealtimeRuntime',
  'CpusetCpus',
  'CpusetMems',
  'PidsLimit',
  'BlkioWeight',
  'BlkioWeightDevice',
  'BlkioDeviceReadBps',
  'BlkioDeviceWriteBps',
  'BlkioDeviceReadIOps',
  'BlkioDeviceWriteIOps',
] as const;

/** Without cgroups a limit would silently not hold: refused, naming the limits and the reason. */
function refuseLimits(r: Resources, reason: string): void {
  const asked = limitFields.filter((field) => {
    const value = r[field];
    if (typeof value === 'number') return value > 0;
    return Array.isArray(value) ? value.length > 0 : !!value;
  });
  if (asked.length > 0)
    throw new InvalidParameterError(
      `${asked.join(', ')}: rootless svcd cannot set resource limits: ${reason}`,
    );
}

/** Create-time adaptation (dockerd's adaptContainerSettings) followed by the resource checks. */
export function validateHostResources(hostConfig: HostConfig, host: HostFacts): ResourceCheck<HostConfig> {
  // Before the defaults below, so that the message names only the limits the client asked for.
  if (host.cgroupsUnavailable) refuseLimits(hostConfig, host.cgroupsUnavailable);
  const adapted = structuredClone(hostConfig);
  if ((adapted.ShmSize ?? 0) < 0) throw new InvalidParameterError('SHM size can not be less than 0');
  if (!adapted.ShmSize) adapted.ShmSize = DEFAULT_SHM_SIZE;
  defaultMemorySwap(adapted);
  clampCpuShares(adapted);
  const oomScoreAdj = adapted.OomScoreAdj ?? 0;
  if (oomScoreAdj < -1000 || oomScoreAdj > 1000) {
    throw new InvalidParameterError(`Invalid value ${oomScoreAdj}, range for oom score adj is [-1000, 1000]`);
  }
  return validateResources(adapted, host);
}
