// PidsLimit: 0 or null leaves the limit unset, a negative value means unlimited.
import type { Resources } from '../../api/container-types';
import type { CgroupSupport } from './host-facts';

export function checkPids(r: Resources, cgroup: CgroupSupport, warnings: string[]): void {
  if (r.PidsLimit != null && !cgroup.pids) {
    if (r.PidsLimit > 0) {
      warnings.push(
        'Your kernel does not support PIDs limit capabilities or the cgroup is not mounted. PIDs limit discarded.',
      );
    }
    r.PidsLimit = null;
  }
}

export function ociPids(r: Resources): { limit: number } | undefined {
  if (r.PidsLimit == null || r.PidsLimit === 0) return undefined;
  return { limit: r.PidsLimit > 0 ? r.PidsLimit : -1 };
}
