// The cgroup limits of a container as linux.resources (without the device rules): used in the
// spec at create and, on its own, for POST /containers/(id)/update through containerd.
import type { Resources } from '../../api/container-types';
import { ociBlockIO } from './blkio-resources';
import { ociCpu } from './cpu-resources';
import { ociMemory } from './memory-resources';
import type { OciResources } from './oci-types';
import { ociPids } from './pids-resources';

export function ociResources(r: Resources): OciResources {
  const result: OciResources = {};
  const memory = ociMemory(r);
  const cpu = ociCpu(r);
  const pids = ociPids(r);
  const blockIO = ociBlockIO(r);
  if (memory) result.memory = memory;
  if (cpu) result.cpu = cpu;
  if (pids) result.pids = pids;
  if (blockIO) result.blockIO = blockIO;
  return result;
}
