// CPU time and resident memory of a process, from /proc (Linux), so the app can show its own
// and the engine's cost side by side without polling anything in the background.
import { readFileSync } from 'node:fs';
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
