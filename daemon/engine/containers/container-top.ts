// GET /containers/{id}/top: `ps` on the host, keeping the rows of the container's processes.
import { execFile } from 'node:child_process';
import { readdir, readFile, readlink } from 'node:fs/promises';
import { promisify } from 'node:util';
import type { ContainerTopResponse } from '../../api/container-summary-types';
import { InvalidParameterError, SystemError } from '../../api/errors';

const run = promisify(execFile);

const pidNamespace = (pid: number | 'self') => readlink(`/proc/${pid}/ns/pid`).catch(() => undefined);

/**
 * The container's processes without its cgroup (runc reads them from there; a rootless svcd
 * without a delegated cgroup gives containers none): those in the PID namespace of its init, or,
 * where it shares svcd's, the init's descendants.
 */
export async function processesOf(initPid: number): Promise<number[]> {
  const ns = await pidNamespace(initPid);
  if (!ns) return [];
  const shared = ns === (await pidNamespace('self'));
  const all = (await readdir('/proc')).filter((name) => /^\d+$/.test(name)).map(Number);
  if (!shared) {
    const found = await Promise.all(all.map(async (pid) => ((await pidNamespace(pid)) === ns ? pid : 0)));
    return found.filter((pid) => pid > 0);
  }
  const parentOf = new Map<number, number>();
  for (const pid of all) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
    // The command name (in parentheses) may hold spaces: the parent is the second field after it.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid) parentOf.set(pid, ppid);
  }
  const tree = new Set([initPid]);
  for (let grew = true; grew;) {
    grew = false;
    for (const [pid, ppid] of parentOf) {
      if (tree.has(ppid) && !tree.has(pid)) {
        tree.add(pid);
        grew = true;
      }
    }
  }
  return [...tree];
}

export async function psTop(pids: number[], psArgs: string): Promise<ContainerTopResponse> {
  const args = (psArgs || '-ef').split(/\s+/).filter(Boolean);
  let stdout: string;
  try {
    ({ stdout } = await run('ps', args, { maxBuffer: 16 * 1024 * 1024 }));
  } catch (err) {
    throw new SystemError(`Error running ps: ${(err as { stderr?: string }).stderr?.trim() || String(err)}`);
  }
  const lines = stdout.split('\n').filter((l) => l.trim() !== '');
  const titles = (lines.shift() ?? '').trim().split(/\s+/);
  const pidIndex = titles.indexOf('PID');
  if (pidIndex < 0) throw new InvalidParameterError(`Couldn't find PID field in ps output`);
  const wanted = new Set(pids);
  const processes: string[][] = [];
  for (const line of lines) {
    const fields = line.trim().split(/\s+/);
    if (!wanted.has(Number(fields[pidIndex]))) continue;
    // The last column (the command) keeps its spaces.
    processes.push([...fields.slice(0, titles.length - 1), fields.slice(titles.length - 1).join(' ')]);
  }
  return { Titles: titles, Processes: processes };
}
