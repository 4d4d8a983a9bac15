// What each layer of an image does to the layers below it, from the entries of its tar: paths
// added, paths changed (present below), paths removed by a whiteout (`.wh.NAME`), and directories
// made opaque (`.wh..wh..opq`: what lower layers had there is hidden). The layers are applied in
// order to one tree, as an overlay mount would stack them.
import type { LayerChange } from '../../../daemon/api/image-layer-types';

export interface LayerEntry {
  path: string;
  type: LayerChange['type'];
  size: number;
  target?: string;
}

interface Node {
  type: LayerChange['type'];
  size: number;
  children: Map<string, Node>;
}

const WHITEOUT = '.wh.';
const OPAQUE = '.wh..wh..opq';

/** "./usr//bin/" → "usr/bin"; "" for the root itself. */
export function cleanPath(p: string): string {
  return p
    .split('/')
    .filter((s) => s && s !== '.')
    .join('/');
}

const split = (p: string) => (p ? p.split('/') : []);

function find(root: Node, path: string): Node | undefined {
  let n: Node | undefined = root;
  for (const s of split(path)) n = n?.children.get(s);
  return n;
}

/** The parent directory of `path`, made (as a directory) where missing. */
function parentOf(root: Node, path: string): [Node, string] {
  const parts = split(path);
  const name = parts.pop()!;
  let n = root;
  for (const s of parts) {
    let next = n.children.get(s);
    if (!next || next.type !== 'directory') {
      next = { type: 'directory', size: 0, children: new Map() };
      n.children.set(s, next);
    }
    n = next;
  }
  return [n, name];
}

const join = (dir: string, name: string) => (dir ? `${dir}/${name}` : name);

/** Each layer's changes, sorted by path, against the layers below it. */
export function layerChanges(layers: LayerEntry[][]): LayerChange[][] {
  const root: Node = { type: 'directory', size: 0, children: new Map() };
  return layers.map((entries) => {
    const changes: LayerChange[] = [];
    const removals: string[] = [];
    const opaque: string[] = [];
    const additions: LayerEntry[] = [];
    for (const e of entries) {
      const path = cleanPath(e.path);
      if (!path) continue;
      const slash = path.lastIndexOf('/');
      const dir = slash < 0 ? '' : path.slice(0, slash);
      const base = path.slice(slash + 1);
      if (base === OPAQUE) opaque.push(dir);
      else if (base.startsWith(WHITEOUT)) removals.push(join(dir, base.slice(WHITEOUT.length)));
      else additions.push({ ...e, path });
    }
    // Whiteouts and opaque markers speak of the layers below, so they are read before this
    // layer's own entries are added (which may sit in the same directory).
    for (const dir of opaque) {
      const below = find(root, dir);
      changes.push({ path: dir, kind: 'opaque', type: 'directory', size: 0 });
      if (!below) continue;
      for (const [name, n] of below.children)
        changes.push({ path: join(dir, name), kind: 'removed', type: n.type, size: n.size });
      below.children.clear();
    }
    for (const path of removals) {
      const [parent, name] = parentOf(root, path);
      const below = parent.children.get(name);
      changes.push({ path, kind: 'removed', type: below?.type ?? 'other', size: below?.size ?? 0 });
      parent.children.delete(name);
    }
    for (const e of additions) {
      const [parent, name] = parentOf(root, e.path);
      const below = parent.children.get(name);
      // A directory already below is only the way to what the layer changes inside it.
      if (!(below?.type === 'directory' && e.type === 'directory')) {
        changes.push({
          path: e.path,
          kind: below ? 'changed' : 'added',
          type: e.type,
          size: e.size,
          ...(e.target ? { target: e.target } : {}),
        });
      }
      if (below && e.type === 'directory' && below.type === 'directory') continue;
      parent.children.set(name, { type: e.type, size: e.size, children: new Map() });
    }
    return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  });
}
