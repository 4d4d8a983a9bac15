// cpuset lists (`0-3,5`): parsing, and checking a request against the host's CPUs or memory nodes.
import { InvalidParameterError } from '../../api/errors';

/** Returns the sorted set of numbers in a cpuset list, or undefined when malformed. */
export function parseCpuList(list: string): number[] | undefined {
  const numbers = new Set<number>();
  for (const part of list.split(',')) {
    const match = /^(\d+)(?:-(\d+))?$/.exec(part.trim());
    if (!match) return undefined;
    const from = Number(match[1]);
    const to = match[2] === undefined ? from : Number(match[2]);
    if (to < from) return undefined;
    for (let n = from; n <= to; n++) numbers.add(n);
  }
  return [...numbers].sort((a, b) => a - b);
}

export function validateCpuset(
  requested: string | undefined,
  available: string,
  what: 'cpus' | 'mems',
): void {
  if (!requested) return;
  const wanted = parseCpuList(requested);
  if (!wanted) throw new InvalidParameterError(`Invalid value ${requested} for cpuset ${what}`);
  const have = new Set(parseCpuList(available) ?? []);
  if (wanted.some((n) => !have.has(n))) {
    const noun = what === 'cpus' ? 'CPUs' : 'memory nodes';
    throw new InvalidParameterError(
      `Requested ${noun} are not available - requested ${requested}, available: ${available}`,
    );
  }
}
