// The containerd shims one svcd runs, found in /proc by its data root on their command line:
// shared by the shim tests and the fault loop's leak scan.
import { readdirSync, readFileSync } from 'node:fs';

/** Live shim daemons of one svcd's containerd (not the short `start`/`delete` invocations). */
export function shimsOf(dataRoot: string): number[] {
  return readdirSync('/proc')
    .filter((p) => /^\d+$/.test(p))
    .filter((pid) => {
      try {
        const args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        return (
          args[0].endsWith('containerd-shim-runc-v2') &&
          args.some((a) => a.startsWith(`${dataRoot}/`)) &&
          !args.includes('start') &&
          !args.includes('delete')
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}
