// CPU shares, CFS period/quota, NanoCpus, real-time scheduling and cpusets.
import { InvalidParameterError } from '../../api/errors';
import type { Resources } from '../../api/container-types';
import { validateCpuset } from './cpuset';
import type { HostFacts } from './host-facts';
import type { OciCpu } from './oci-types';

const MIN_SHARES = 2;
const MAX_SHARES = 262144;
/** NanoCpus are turned into a quota over this CFS period (100 ms), as dockerd does. */
const NANO_CPU_PERIOD = 100_000;

export function checkCpu(r: Resources, host: HostFacts, warnings: string[]): void {
  const nano = r.NanoCpus ?? 0;
  if (nano > 0 && (r.CpuPeriod ?? 0) > 0) {
    throw new InvalidParameterError('Conflicting options: Nano CPUs and CPU Period cannot both be set');
  }
  if (nano > 0 && (r.CpuQuota ?? 0) > 0) {
    throw new InvalidParameterError('Conflicting options: Nano CPUs and CPU Quota cannot both be set');
  }
  if (nano > 0 && !host.cgroup.cpuCfs) {
    throw new InvalidParameterError(
      'NanoCPUs can not be set, as your kernel does not support CPU CFS scheduler or the cgroup is not mounted',
    );
  }
  if (nano < 0 || nano > host.cpuCount * 1e9) {
    throw new InvalidParameterError(
      `Range of CPUs is from 0.01 to ${host.cpuCount}.00, as there are only ${host.cpuCount} CPUs available`,
    );
  }
  if ((r.CpuShares ?? 0) > 0 && !host.cgroup.cpuShares) {
    warnings.push('Your kernel does not support CPU shares or the cgroup is not mounted. Shares discarded.');
    r.CpuShares = 0;
  }
  const period = r.CpuPeriod ?? 0;
  if (period !== 0 && (period < 1000 || period > 1_000_000)) {
    throw new InvalidParameterError(
      'CPU cfs period can not be less than 1ms (i.e. 1000) or larger than 1s (i.e. 1000000)',
    );
  }
  const quota = r.CpuQuota ?? 0;
  if (quota > 0 && quota < 1000)
    throw new InvalidParameterError('CPU cfs quota can not be less than 1ms (i.e. 1000)');
  if ((period !== 0 || quota !== 0) && !host.cgroup.cpuCfs) {
    warnings.push('Your kernel does not support CPU CFS scheduler. CPU period/quota discarded.');
    r.CpuPeriod = 0;
    r.CpuQuota = 0;
  }
  checkRealtime(r, host);
  if ((r.CpuPercent ?? 0) > 0) {
    warnings.push('linux does not support CPU percent. Percent discarded.');
    r.CpuPercent = 0;
  }
  if ((r.CpuCount ?? 0) > 0) {
    warnings.push('linux does not support CPU count. Count discarded.');
    r.CpuCount = 0;
  }
  validateCpuset(r.CpusetCpus, host.cpusetCpus, 'cpus');
  validateCpuset(r.CpusetMems, host.cpusetMems, 'mems');
}

function checkRealtime(r: Resources, host: HostFacts): void {
  const period = r.CpuRealtimePeriod ?? 0;
  const runtime = r.CpuRealtimeRuntime ?? 0;
  if ((period > 0 || runtime > 0) && !host.cgroup.cpuRealtime) {
    throw new InvalidParameterError('Your kernel does not support cgroup cpu real-time scheduling');
  }
  if (period !== 0 && runtime !== 0 && runtime > period) {
    throw new InvalidParameterError('cpu real-time runtime cannot be higher than cpu real-time period');
  }
}

/** Create-time clamp of CpuShares into the kernel's range (0 stays "default"). */
export function clampCpuShares(r: Resources): void {
  const shares = r.CpuShares ?? 0;
  if (shares < 0) r.CpuShares = MIN_SHARES;
  else if (shares > MAX_SHARES) r.CpuShares = MAX_SHARES;
}

export function ociCpu(r: Resources): OciCpu | undefined {
  const cpu: OciCpu = {};
  if ((r.CpuShares ?? 0) > 0) cpu.shares = r.CpuShares;
  if ((r.NanoCpus ?? 0) > 0) {
    cpu.period = NANO_CPU_PERIOD;
    cpu.quota = Math.round(((r.NanoCpus ?? 0) * NANO_CPU_PERIOD) / 1e9);
  }
  if ((r.CpuPeriod ?? 0) > 0) cpu.period = r.CpuPeriod;
  if ((r.CpuQuota ?? 0) !== 0) cpu.quota = r.CpuQuota;
  if ((r.CpuRealtimePeriod ?? 0) > 0) cpu.realtimePeriod = r.CpuRealtimePeriod;
  if ((r.CpuRealtimeRuntime ?? 0) > 0) cpu.realtimeRuntime = r.CpuRealtimeRuntime;
  if (r.CpusetCpus) cpu.cpus = r.CpusetCpus;
  if (r.CpusetMems) cpu.mems = r.CpusetMems;
  return Object.keys(cpu).length > 0 ? cpu : undefined;
}
