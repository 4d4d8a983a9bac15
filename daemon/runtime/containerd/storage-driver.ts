// Which containerd snapshotter svcd uses: overlayfs where the kernel lets this process mount an
// overlay (always as root; in a user namespace only on kernels that allow it), otherwise
// containerd's built-in native snapshotter, which copies each layer in full. fuse-overlayfs
// would be the faster fallback but needs containerd's separate fuse-overlayfs-snapshotter.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type StorageDriverName = 'overlayfs' | 'native';

export const storageDriverNames: readonly StorageDriverName[] = ['overlayfs', 'native'];

export function isStorageDriverName(value: string): value is StorageDriverName {
  return (storageDriverNames as readonly string[]).includes(value);
}

export interface StorageDriver {
  name: StorageDriverName;
  /** Why this one, as /info's DriverStatus shows it. */
  reason: string;
}

/** Mounts a one-layer overlay in a temp dir under `dir`; the error message when the kernel refuses. */
export async function probeOverlay(dir: string): Promise<string | undefined> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const probe = await mkdtemp(join(dir, 'overlay-probe-'));
  const [lower, upper, work, merged] = ['lower', 'upper', 'work', 'merged'].map((d) => join(probe, d));
  try {
    for (const d of [lower, upper, work, merged]) await mkdir(d);
    const options = `lowerdir=${lower},upperdir=${upper},workdir=${work}`;
    try {
      await run('mount', ['-t', 'overlay', '-o', options, 'overlay', merged]);
    } catch (err) {
      // mount's first line names the error; the rest points at dmesg.
      return (err as { stderr?: string }).stderr?.trim().split('\n')[0] || String(err);
    }
    await run('umount', [merged]);
    return undefined;
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/**
 * The driver `forced` names, or the probe's choice. Forcing overlayfs where the kernel refuses
 * it stops svcd with the kernel's reason rather than a containerd that cannot unpack anything.
 */
export async function chooseStorageDriver(
  probeDir: string,
  forced: StorageDriverName | undefined,
): Promise<StorageDriver> {
  if (forced === 'native') return { name: 'native', reason: 'forced by --storage-driver' };
  const refused = await probeOverlay(probeDir);
  if (forced === 'overlayfs') {
    if (refused !== undefined)
      throw new Error(`--storage-driver overlayfs: this kernel refuses an overlay mount here (${refused})`);
    return { name: 'overlayfs', reason: 'forced by --storage-driver' };
  }
  return refused === undefined
    ? { name: 'overlayfs', reason: 'probed: overlay mount works' }
    : { name: 'native', reason: `probed: overlay mount refused (${refused})` };
}

/**
 * Containers made under another driver have their root filesystems in that snapshotter, which
 * this svcd would neither mount nor clean up (and its sweep of unrecorded containers must not
 * touch them): it refuses to start rather than lose them, as dockerd keeps each driver's apart.
 * Each container names its driver once: containerd's record where it has one, otherwise the
 * driver its record was created under (a container never started has nothing in containerd).
 * Images need nothing: they are unpacked again into the driver in use when a container needs them.
 */
export function refuseOtherDriversContainers(driver: string, drivers: Iterable<string>): void {
  const others = new Map<string, number>();
  for (const d of drivers) if (d && d !== driver) others.set(d, (others.get(d) ?? 0) + 1);
  if (others.size === 0) return;
  const held = [...others].map(([name, n]) => `${n} with ${name}`).join(', ');
  throw new Error(
    `the data root holds containers made with another storage driver (${held}); start svcd with --storage-driver ${[...others.keys()][0]}, or remove those containers with it first`,
  );
}
