// GET /containers/{id}/top: `ps` on the host, keeping the rows of the container's processes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { ContainerTopResponse } from '../../api/container-summary-types';
import { InvalidParameterError, SystemError } from '../../api/errors';

const run = promisify(execFile);

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
