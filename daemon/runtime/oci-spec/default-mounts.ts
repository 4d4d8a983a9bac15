// The kernel filesystems every container gets (/proc, /dev, /dev/pts, /dev/mqueue, /sys, the
// cgroup tree) and the /proc and /sys paths Docker masks or makes read-only.
import type { OciMount } from './oci-types';

export const DEFAULT_MASKED_PATHS = [
  '/proc/asound',
  '/proc/acpi',
  '/proc/kcore',
  '/proc/keys',
  '/proc/latency_stats',
  '/proc/timer_list',
  '/proc/timer_stats',
  '/proc/sched_debug',
  '/proc/scsi',
  '/sys/firmware',
  '/sys/devices/virtual/powercap',
];

export const DEFAULT_READONLY_PATHS = [
  '/proc/bus',
  '/proc/fs',
  '/proc/irq',
  '/proc/sys',
  '/proc/sysrq-trigger',
];

export const DEFAULT_SHM_SIZE = 64 * 1024 * 1024;

/** /sys and the cgroup tree are read-only unless the container is privileged. */
export function defaultMounts(privileged: boolean): OciMount[] {
  const ro = privileged ? [] : ['ro'];
  return [
    { destination: '/proc', type: 'proc', source: 'proc', options: ['nosuid', 'noexec', 'nodev'] },
    {
      destination: '/dev',
      type: 'tmpfs',
      source: 'tmpfs',
      options: ['nosuid', 'strictatime', 'mode=755', 'size=65536k'],
    },
    {
      destination: '/dev/pts',
      type: 'devpts',
      source: 'devpts',
      options: ['nosuid', 'noexec', 'newinstance', 'ptmxmode=0666', 'mode=0620', 'gid=5'],
    },
    { destination: '/sys', type: 'sysfs', source: 'sysfs', options: ['nosuid', 'noexec', 'nodev', ...ro] },
    {
      destination: '/sys/fs/cgroup',
      type: 'cgroup',
      source: 'cgroup',
      options: [...ro, 'nosuid', 'noexec', 'nodev'],
    },
    { destination: '/dev/mqueue', type: 'mqueue', source: 'mqueue', options: ['nosuid', 'noexec', 'nodev'] },
  ];
}

/** A private /dev/shm of `size` bytes. */
export function shmTmpfs(size: number): OciMount {
  return {
    destination: '/dev/shm',
    type: 'tmpfs',
    source: 'shm',
    options: ['nosuid', 'noexec', 'nodev', 'mode=1777', `size=${size}`],
  };
}
