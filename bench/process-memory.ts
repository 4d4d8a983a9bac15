// Memory figures of a running process, read from /proc, and the process behind a loopback port
// (the peer registry is started by hand, so its pid is found by what it listens on).
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';

const run = promisify(execFile);

async function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)?.[1] ?? 0);
}

/** Resident memory now, in MB. */
export async function rssMB(pid: number): Promise<number> {
  return Math.round((await statusKb(pid, 'VmRSS')) / 1000);
}

/** The highest resident memory the process ever had, in MiB. */
export async function peakRssMiB(pid: number): Promise<number> {
  return Math.round((await statusKb(pid, 'VmHWM')) / 1024);
}

/** The pid of the process listening on this TCP port, from `ss`; undefined when none is found. */
export async function listenerPid(port: number): Promise<number | undefined> {
  const { stdout } = await run('ss', ['-Hltnp', `sport = :${port}`]);
  const m = /pid=(\d+)/.exec(stdout);
  return m ? Number(m[1]) : undefined;
}
