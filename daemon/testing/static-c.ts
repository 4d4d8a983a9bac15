// Test programs written in C (a syscall probe, a UDP echo server, a volume driver), built static:
// they run in busybox containers and plugin root filesystems, which have no C library.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../lib/product';

/** Why a suite needing gcc is skipped, or undefined when gcc is there. */
export function gccMissing(): string | undefined {
  return spawnSync('gcc', ['--version']).status === 0
    ? undefined
    : 'gcc is not installed (apt-get install gcc libc6-dev)';
}

/** Builds `source` (a path from the repository's root) static into `out`; gcc's errors are thrown. */
export function buildStaticC(source: string, out: string): void {
  const built = spawnSync('gcc', ['-static', '-O2', '-o', out, join(repoRoot(), source)], {
    encoding: 'utf8',
  });
  if (built.status !== 0) throw new Error(`gcc could not build ${source}: ${built.stderr || built.error}`);
}
