// GET /containers/{id}/changes: the container's writable layer (the overlay upper directory)
// compared with the layers below it. Whiteouts (0/0 character devices) are deletions. With the
// native storage driver the container's snapshot is a full copy: it is compared with its base.
import type { Stats } from 'node:fs';
import { lstat, readdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
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

/** Every path under `root` ('/etc/hosts' style) with its lstat. */
async function treeOf(root: string): Promise<Map<string, Stats>> {
  const tree = new Map<string, Stats>();
  const walk = async (rel: string) => {
    for (const name of await readdir(join(root, rel))) {
      const childRel = `${rel}/${name}`;
      const s = await lstat(join(root, childRel));
      tree.set(childRel, s);
      if (s.isDirectory()) await walk(childRel);
    }
  };
  await walk('');
  return tree;
}

/** As dockerd compares trees: owner, mode, device; and for all but directories size and mtime. */
function differs(a: Stats, b: Stats): boolean {
  if (a.mode !== b.mode || a.uid !== b.uid || a.gid !== b.gid || a.rdev !== b.rdev) return true;
  return !a.isDirectory() && (a.size !== b.size || a.mtimeMs !== b.mtimeMs);
}

/**
 * The changes of the full copy `copy` against `base`, as an overlay would show them: added trees
 * in full, a deleted tree by its top only, and the directories holding a change as changed.
 */
export async function copyChanges(copy: string, base: string): Promise<ContainerChange[]> {
  const [now, before] = await Promise.all([treeOf(copy), treeOf(base)]);
  const kinds = new Map<string, ContainerChange['Kind']>();
  const mark = (path: string, kind: ContainerChange['Kind']) => {
    kinds.set(path, kind);
    for (let dir = dirname(path); dir !== '/' && !kinds.has(dir); dir = dirname(dir)) kinds.set(dir, 0);
  };
  for (const [path, s] of now) {
    const old = before.get(path);
    if (!old) mark(path, 1);
    else if (differs(old, s)) mark(path, 0);
  }
  for (const path of before.keys()) {
    const dir = dirname(path);
    if (!now.has(path) && (dir === '/' || now.has(dir))) mark(path, 2);
  }
  return [...kinds].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([Path, Kind]) => ({ Path, Kind }));
}
