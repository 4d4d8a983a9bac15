// Resolved user mounts → OCI mounts, parents before children, and the root propagation that
// shared or slave binds need.
import { mkdirSync, existsSync } from 'node:fs';
import type { OciMount } from './oci-types';
import type { ResolvedMount } from './mount-types';

function depth(path: string): number {
  return path.split('/').filter(Boolean).length;
}

export function ociUserMount(mount: ResolvedMount): OciMount {
  if (mount.Type === 'tmpfs') {
    return {
      destination: mount.Destination,
      type: 'tmpfs',
      source: 'tmpfs',
      options: [...mount.Options, 'rprivate'],
    };
  }
  const bind = mount.Type === 'bind' ? mount : undefined;
  const options = [bind && !bind.Recursive ? 'bind' : 'rbind', bind?.Propagation ?? 'rprivate'];
  if (mount.ReadOnly) options.push('ro');
  return { destination: mount.Destination, type: 'bind', source: mount.Source, options };
}

/** Legacy Binds create their missing host directory, as dockerd does when the container starts. */
export function createBindSources(mounts: ResolvedMount[]): void {
  for (const mount of mounts) {
    if (mount.Type === 'bind' && mount.CreateSource && !existsSync(mount.Source))
      mkdirSync(mount.Source, { recursive: true });
  }
}

/** User mounts and the other container mounts, parents before children (a stable sort by depth). */
export function sortMounts(mounts: (ResolvedMount | OciMount)[]): OciMount[] {
  return mounts
    .map((mount) => ('Type' in mount ? ociUserMount(mount) : mount))
    .map((mount, index) => ({ mount, index }))
    .sort((a, b) => depth(a.mount.destination) - depth(b.mount.destination) || a.index - b.index)
    .map(({ mount }) => mount);
}

/** rshared binds need a shared root, rslave ones at least a slave root. */
export function rootfsPropagation(mounts: ResolvedMount[]): string | undefined {
  const propagations = mounts.flatMap((m) => (m.Type === 'bind' ? [m.Propagation] : []));
  if (propagations.some((p) => p === 'shared' || p === 'rshared')) return 'shared';
  if (propagations.some((p) => p === 'slave' || p === 'rslave')) return 'rslave';
  return undefined;
}

/**
 * dockerd's rule for its own mounts: a user mount at the same destination replaces one, and a
 * user mount at /dev replaces everything under /dev.
 */
export function replacedByUserMount(destination: string, mounts: ResolvedMount[]): boolean {
  return mounts.some(
    (m) => m.Destination === destination || (m.Destination === '/dev' && destination.startsWith('/dev/')),
  );
}
