// CPU time and resident memory of a process, from /proc (Linux), so the app can show its own
// and the engine's cost side by side without polling anything in the background.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { ProcUsage } from '../../../daemon/api/desktop-types';

const CLOCK_TICKS = 100; // USER_HZ on Linux

export function procUsage(pid: number): ProcUsage | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    return { pid, cpuSeconds: ticks / CLOCK_TICKS, rssBytes: rssKb * 1024 };
  } catch {
    return undefined;
  }
}

interface ProcessEntry {
  pid: number;
  ppid: number;
  args: string[];
}

function processes(): ProcessEntry[] {
  const found: ProcessEntry[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const args = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter(Boolean);
      found.push({ pid: Number(name), ppid, args });
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

/**
 * The processes that work for svcd: its containerd (a child) and that containerd's shims, which
 * leave their parent when they start and are found by the containerd socket they name.
 */
export function engineHelpers(svcdPid: number): { label: string; pid: number }[] {
  const all = processes();
  const containerd = all.find((p) => p.ppid === svcdPid && p.args[0]?.endsWith('containerd'));
  if (!containerd) return [];
  const config = containerd.args[containerd.args.indexOf('--config') + 1];
  const socket = config ? `${dirname(config)}/containerd.sock` : undefined;
  const shims = all.filter((p) => socket && p.args.includes('-address') && p.args.includes(socket));
  return [
    { label: 'containerd (svcd)', pid: containerd.pid },
    ...shims.map((p) => ({ label: `containerd-shim ${p.pid} (svcd)`, pid: p.pid })),
  ];
}
