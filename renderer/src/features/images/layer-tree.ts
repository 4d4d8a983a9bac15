// A layer's changes as a directory tree: each directory counts what changed beneath it, so the
// explorer can show where a layer's weight is before anything is opened.
import type { LayerChange, LayerChangeKind } from '../../../../daemon/api/image-layer-types';
import type { ImageHistoryItem } from '../../api/engine-types';

export interface TreeNode {
  name: string;
  path: string;
  /** What the layer does to this path itself; absent for a directory only on the way. */
  change?: LayerChange;
  children: TreeNode[];
  /** Changes at or below this node, by kind, and the bytes they add. */
  counts: Record<LayerChangeKind, number>;
  bytes: number;
}

const node = (name: string, path: string): TreeNode => ({
  name,
  path,
  children: [],
  counts: { added: 0, changed: 0, removed: 0, opaque: 0 },
  bytes: 0,
});

/** The tree of `changes` (sorted or not); directories first, then by name. */
export function layerTree(changes: LayerChange[]): TreeNode {
  const root = node('/', '');
  const index = new Map<string, TreeNode>([['', root]]);
  const at = (path: string): TreeNode => {
    const found = index.get(path);
    if (found) return found;
    const slash = path.lastIndexOf('/');
    const parent = at(slash < 0 ? '' : path.slice(0, slash));
    const made = node(path.slice(slash + 1), path);
    parent.children.push(made);
    index.set(path, made);
    return made;
  };
  for (const c of changes) {
    at(c.path).change = c;
    const added = c.kind === 'added' || c.kind === 'changed' ? c.size : 0;
    for (let p: string | undefined = c.path; p !== undefined; p = parentPath(p)) {
      const n = index.get(p)!;
      n.counts[c.kind]++;
      n.bytes += added;
    }
  }
  const sort = (n: TreeNode) => {
    n.children.sort((a, b) => Number(isDir(b)) - Number(isDir(a)) || a.name.localeCompare(b.name));
    n.children.forEach(sort);
  };
  sort(root);
  return root;
}

function parentPath(p: string): string | undefined {
  if (p === '') return undefined;
  const slash = p.lastIndexOf('/');
  return slash < 0 ? '' : p.slice(0, slash);
}

export const isDir = (n: TreeNode) => n.children.length > 0 || n.change?.type === 'directory';

/** Per-layer totals for the layer list. */
export function layerTotals(changes: LayerChange[]): Record<LayerChangeKind, number> & { bytes: number } {
  const t = { added: 0, changed: 0, removed: 0, opaque: 0, bytes: 0 };
  for (const c of changes) {
    t[c.kind]++;
    if (c.kind === 'added' || c.kind === 'changed') t.bytes += c.size;
  }
  return t;
}

/**
 * History entries that made the layers, oldest first, when they can be told apart from those that
 * made none (ENV, CMD…): the API does not mark them, so only when the counts agree.
 */
export function layerHistory(
  history: ImageHistoryItem[] | undefined,
  layers: number,
): (string | undefined)[] {
  const oldest = [...(history ?? [])].reverse();
  const sized = oldest.filter((h) => h.Size > 0);
  const made = oldest.length === layers ? oldest : sized.length === layers ? sized : [];
  return Array.from({ length: layers }, (_, i) => made[i]?.CreatedBy);
}
