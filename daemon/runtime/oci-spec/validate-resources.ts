// The resource part of HostConfig, at create and in POST /containers/{id}/update's body: dockerd's
// create-time defaults, its checks (the one place they are made), and warnings for what this host
// cannot enforce (those limits are discarded).
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

/** The limits both a create and an update may set, each one value. */
const scalarLimits = [
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
] as const;

/** The limits a create or update may ask for; 0, null, empty and -1 (unlimited) ask for none. */
const limitFields = [
  ...scalarLimits,
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

/** The resource fields POST /containers/{id}/update may change, as dockerd's update takes them. */
const updatableFields = [...scalarLimits, 'KernelMemory'] as const;

/**
 * An update's resources: the fields it gives (null and absent ones change nothing) over the
 * container's, checked as at create save for the rules only create applies. `changed` says
 * whether any limit was given, so that the running task and its spec need updating.
 */
export function validateResourceUpdate(
  current: HostConfig,
  body: Resources,
  host: HostFacts,
): ResourceCheck<HostConfig> & { changed: boolean } {
  const changes: Resources = {};
  for (const key of updatableFields)
    if (body[key] !== undefined && body[key] !== null) (changes as Record<string, unknown>)[key] = body[key];
  const merged: HostConfig = { ...current, ...changes };
  // Raising Memory above the old MemorySwap without a new MemorySwap keeps swap in step, as dockerd does.
  if (
    changes.Memory &&
    changes.MemorySwap === undefined &&
    (merged.MemorySwap ?? 0) > 0 &&
    merged.MemorySwap! < changes.Memory
  ) {
    throw new InvalidParameterError(
      'Memory limit should be smaller than already set memoryswap limit, update the memoryswap at the same time',
    );
  }
  return { ...validateResources(merged, host, true), changed: Object.keys(changes).length > 0 };
}
