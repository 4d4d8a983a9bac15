// A /16 of 10.0.0.0/8 for one suite's own network subnets, so suites running side by side (and
// other runs on the machine) never give two bridges the same subnet. svcd refuses a subnet only
// when one of its own networks has it, so the suite must not ask for one another suite uses.
// The claim is a file in the temp dir made atomically; one whose process is gone is taken over.
import { execFileSync } from 'node:child_process';
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const claimPrefix = 'svc-test-subnet-10.';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the claim file for 10.`second`.0.0/16 unless a live process holds it. */
function claim(second: number): boolean {
  const path = join(tmpdir(), `${claimPrefix}${second}`);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      process.once('exit', () => {
        try {
          unlinkSync(path);
        } catch {}
      });
      return true;
    } catch {
      const holder = Number(readFileSync(path, 'utf8').trim() || 0);
      if (holder && alive(holder)) return false;
      try {
        unlinkSync(path);
      } catch {}
    }
  }
  return false;
}

export interface SuiteSubnets {
  /** The /16 as a whole, e.g. `10.143.0.0/16`. */
  readonly wide: string;
  /** Its `n`th /24, e.g. `10.143.7.0/24`. */
  subnet(n: number): string;
  /** Its `n`th /24's first three octets, e.g. `10.143.7` (for addresses in it). */
  prefix(n: number): string;
}

/** The second octets of 10.x.0.0/16s that some route of the host's reaches into. */
function routedTens(): Set<number> {
  const routes = JSON.parse(
    execFileSync('ip', ['-j', '-4', 'route', 'show', 'table', 'all'], { encoding: 'utf8' }),
  ) as Array<{ dst: string }>;
  const used = new Set<number>();
  for (const { dst } of routes) {
    const m = /^10\.(\d+)\.\d+\.\d+(?:\/(\d+))?$/.exec(dst);
    if (!m) continue;
    const [b, prefix] = [Number(m[1]), Number(m[2] ?? 32)];
    const span = prefix >= 16 ? 1 : 2 ** (16 - prefix);
    const first = b - (b % span);
    for (let n = first; n < first + span; n++) used.add(n);
  }
  return used;
}

/** A /16 no host route and no other suite uses, in 10.100.0.0–10.199.255.255, held until exit. */
export function claimSuiteSubnets(): SuiteSubnets {
  const used = routedTens();
  const candidates = Array.from({ length: 100 }, (_, i) => 100 + i).filter((n) => !used.has(n));
  // Start at a random one so two suites looking at once rarely contend for the same file.
  const start = Math.floor(Math.random() * candidates.length);
  for (let i = 0; i < candidates.length; i++) {
    const second = candidates[(start + i) % candidates.length];
    if (!claim(second)) continue;
    return {
      wide: `10.${second}.0.0/16`,
      subnet: (n) => `10.${second}.${n}.0/24`,
      prefix: (n) => `10.${second}.${n}`,
    };
  }
  throw new Error('no free 10.x.0.0/16 left for this suite');
}
