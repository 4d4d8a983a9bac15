// GET /containers/{id}/changes: the container's writable layer (the overlay upper directory)
// compared with the layers below it. Whiteouts (0/0 character devices) are deletions.
import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerChange } from '../../api/container-summary-types';

async function inLowers(lowers: string[], rel: string): Promise<boolean> {
  for (const lower of lowers)
    if (
      await lstat(join(lower, rel)).then(
        () => true,
        () => false,
      )
    )
      return true;
  return false;
}

export async function layerChanges(upper: string, lowers: string[]): Promise<ContainerChange[]> {
  const changes: ContainerChange[] = [];
  const walk = async (rel: string, parentAdded: boolean) => {
    for (const name of (await readdir(join(upper, rel))).sort()) {
      const childRel = `${rel}/${name}`;
      const s = await lstat(join(upper, childRel));
      if (s.isCharacterDevice() && s.rdev === 0) {
        changes.push({ Path: childRel, Kind: 2 });
        continue;
      }
      const added = parentAdded || !(await inLowers(lowers, childRel));
      changes.push({ Path: childRel, Kind: added ? 1 : 0 });
      if (s.isDirectory()) await walk(childRel, added);
    }
  };
  await walk('', false);
  return changes;
}
