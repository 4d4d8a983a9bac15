// Memory, swap, reservation, kernel memory, swappiness and the OOM killer: dockerd's checks
// (errors, and warnings for limits this host cannot enforce) and the OCI mapping.
import { InvalidParameterError } from '../../api/errors';
import type { Resources } from '../../api/container-types';
import type { CgroupSupport } from './host-facts';
import type { OciMemory } from './oci-types';

const MIN_MEMORY = 6 * 1024 * 1024;
const MIN_KERNEL_MEMORY = 4 * 1024 * 1024;

/** Checks `r` in place: unsupported limits are discarded with a warning, as dockerd does. */
export function checkMemory(r: Resources, cgroup: CgroupSupport, warnings: string[], update = false): void {
  const memory = r.Memory ?? 0;
  if (memory !== 0 && memory < MIN_MEMORY)
    throw new InvalidParameterError('Minimum memory limit allowed is 6MB');
  if (memory > 0 && !cgroup.memoryLimit) {
    warnings.push(
      'Your kernel does not support memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
    );
    r.Memory = 0;
    r.MemorySwap = -1;
  }
  if ((r.Memory ?? 0) > 0 && (r.MemorySwap ?? 0) > 0 && !cgroup.swapLimit) {
    warnings.push(
      'Your kernel does not support swap limit capabilities or the cgroup is not mounted. Memory limited without swap.',
    );
    r.MemorySwap = -1;
  }
  const swap = r.MemorySwap ?? 0;
  if ((r.Memory ?? 0) > 0 && swap > 0 && swap < (r.Memory ?? 0)) {
    throw new InvalidParameterError('Minimum memoryswap limit should be larger than memory limit, see usage');
  }
  if ((r.Memory ?? 0) === 0 && swap > 0 && !update) {
    throw new InvalidParameterError(
      'You should always set the Memory limit when using Memoryswap limit, see usage',
    );
  }
  if (r.MemorySwappiness === -1) r.MemorySwappiness = null;
  if (r.MemorySwappiness != null) {
    if (r.MemorySwappiness < 0 || r.MemorySwappiness > 100) {
      throw new InvalidParameterError(
        `Invalid value: ${r.MemorySwappiness}, valid memory swappiness range is 0-100`,
      );
    }
    if (!cgroup.memorySwappiness) {
      warnings.push(
        'Your kernel does not support memory swappiness capabilities or the cgroup is not mounted. Memory swappiness discarded.',
      );
      r.MemorySwappiness = null;
    }
  }
  checkReservation(r, cgroup, warnings);
  checkKernelMemory(r, cgroup, warnings);
  if (r.OomKillDisable != null && !cgroup.oomKillDisable) {
    warnings.push('Your kernel does not support OomKillDisable. OomKillDisable discarded.');
    r.OomKillDisable = null;
  }
  if (r.OomKillDisable && (r.Memory ?? 0) === 0) {
    warnings.push(
      'OOM killer is disabled for the container, but no memory limit is set, this can result in the system running out of resources.',
    );
  }
}

function checkReservation(r: Resources, cgroup: CgroupSupport, warnings: string[]): void {
  const reservation = r.MemoryReservation ?? 0;
  if (reservation > 0 && reservation < MIN_MEMORY) {
    throw new InvalidParameterError('Minimum memory reservation allowed is 6MB');
  }
  if ((r.Memory ?? 0) > 0 && reservation > 0 && (r.Memory ?? 0) < reservation) {
    throw new InvalidParameterError(
      'Minimum memory limit can not be less than memory reservation limit, see usage',
    );
  }
  if (reservation > 0 && !cgroup.memoryReservation) {
    warnings.push(
      'Your kernel does not support memory soft limit capabilities or the cgroup is not mounted. Limitation discarded.',
    );
    r.MemoryReservation = 0;
  }
}

function checkKernelMemory(r: Resources, cgroup: CgroupSupport, warnings: string[]): void {
  const kernel = r.KernelMemory ?? 0;
  if (kernel <= 0) return;
  if (kernel < MIN_KERNEL_MEMORY)
    throw new InvalidParameterError('Minimum kernel memory limit allowed is 4MB');
  warnings.push('Specifying a kernel memory limit is deprecated and will be removed in a future release.');
  if (!cgroup.kernelMemory) {
    warnings.push(
      'Your kernel does not support kernel memory limit capabilities or the cgroup is not mounted. Limitation discarded.',
    );
    r.KernelMemory = 0;
  }
}

/** Create-time defaults: swap of twice the memory limit when only Memory is given. */
export function defaultMemorySwap(r: Resources): void {
  if ((r.Memory ?? 0) > 0 && (r.MemorySwap ?? 0) === 0) r.MemorySwap = (r.Memory ?? 0) * 2;
}

export function ociMemory(r: Resources): OciMemory | undefined {
  const memory: OciMemory = {};
  if ((r.Memory ?? 0) > 0) memory.limit = r.Memory;
  if ((r.MemoryReservation ?? 0) > 0) memory.reservation = r.MemoryReservation;
  if ((r.Memory ?? 0) > 0 && r.MemorySwap !== undefined && r.MemorySwap !== 0) memory.swap = r.MemorySwap;
  if ((r.KernelMemory ?? 0) > 0) memory.kernel = r.KernelMemory;
  if (r.MemorySwappiness != null) memory.swappiness = r.MemorySwappiness;
  if (r.OomKillDisable != null) memory.disableOOMKiller = r.OomKillDisable;
  return Object.keys(memory).length > 0 ? memory : undefined;
}
