// The layers of an image, bottom first, and for the chosen one the files it adds, changes and
// removes as a tree, with sizes. Read by the gateway from the image's saved archive.
import { useMemo, useState, type KeyboardEvent } from 'react';
import { ChevronDown, ChevronRight, File, Folder, FolderX, Link } from 'lucide-react';
import type { ImageHistoryItem, ImageInspect } from '../../../api/engine-types';
import type { LayerChangeKind } from '../../../../../daemon/api/image-layer-types';
import { ErrorMessage } from '../../../app/ui/error-message';
import { bytes, plural, shortId } from '../../../app/ui/format';
import { SearchBox } from '../../../app/ui/search-box';
import { Segmented, type Choice } from '../../../app/ui/segmented';
import { useImageLayerFiles } from '../queries';
import { isDir, layerHistory, layerTotals, layerTree, type TreeNode } from '../layer-tree';
import './images.css';

const KINDS: Choice<LayerChangeKind | 'all'>[] = [
  { value: 'all', label: 'All' },
  { value: 'added', label: 'Added' },
  { value: 'changed', label: 'Changed' },
  { value: 'removed', label: 'Removed' },
];
const MARK: Record<LayerChangeKind, string> = { added: 'A', changed: 'C', removed: 'D', opaque: 'O' };
/** Rows one directory shows before "more"; a layer can hold tens of thousands of files. */
const SHOWN = 300;
/** Search results opened at once at most. */
const OPEN_ALL = 2000;

export function LayerExplorer({ image, history }: { image: ImageInspect; history?: ImageHistoryItem[] }) {
  const files = useImageLayerFiles(image.Id);
  const [selected, setSelected] = useState(0);
  const [kind, setKind] = useState<LayerChangeKind | 'all'>('all');
  const [search, setSearch] = useState('');
  const layers = files.data?.layers ?? [];
  const createdBy = layerHistory(history, layers.length);
  const layer = layers[Math.min(selected, layers.length - 1)];
  const tree = useMemo(() => {
    const q = search.toLowerCase();
    const changes = (layer?.changes ?? []).filter(
      (c) =>
        (kind === 'all' || c.kind === kind || (kind === 'removed' && c.kind === 'opaque')) &&
        c.path.toLowerCase().includes(q),
    );
    // Everything a search finds is opened, while that stays a readable (and quick) page.
    return { root: layerTree(changes), openAll: !!q && changes.length <= OPEN_ALL };
  }, [layer, kind, search]);
  const totals = layer ? layerTotals(layer.changes) : undefined;

  if (files.isPending) return <p className="muted">Reading the image's layers…</p>;
  if (files.error) return <ErrorMessage error={files.error} context="Could not read the image's layers" />;
  return (
    <div className="layer-explorer">
      {files.data?.truncated ? (
        <p className="hint">This image has more files than the explorer lists; the rest are left out.</p>
      ) : null}
      <ol className="layer-list" aria-label="Layers">
        {layers.map((l, i) => {
          const t = layerTotals(l.changes);
          return (
            <li key={i}>
              <button
                aria-pressed={i === selected}
                onClick={() => setSelected(i)}
                title={createdBy[i] ?? l.archivePath}
              >
                <span className="layer-head">
                  <strong>Layer {i + 1}</strong>
                  <code>{shortId(image.RootFS.Layers[i] ?? l.archivePath)}</code>
                  <span className="muted">{bytes(l.tarSize)}</span>
                </span>
                <span className="layer-counts">
                  <span className="kind-added">+{t.added}</span>{' '}
                  <span className="kind-changed">~{t.changed}</span>{' '}
                  <span className="kind-removed">−{t.removed}</span>
                </span>
                {createdBy[i] ? <code className="ellipsis muted">{createdBy[i]}</code> : null}
              </button>
            </li>
          );
        })}
      </ol>
      <div className="layer-files">
        <div className="toolbar">
          <Segmented label="Show" choices={KINDS} value={kind} onChange={setKind} />
          <SearchBox label="Filter files" placeholder="Filter files" value={search} onChange={setSearch} />
        </div>
        {totals ? (
          <p className="muted" data-testid="layer-summary">
            Layer {selected + 1}: {plural(totals.added, 'path')} added, {totals.changed} changed,{' '}
            {totals.removed} removed; {bytes(totals.bytes)} of files
          </p>
        ) : null}
        {tree.root.children.length ? (
          <ul role="tree" aria-label={`Files of layer ${selected + 1}`} className="tree" onKeyDown={treeKeys}>
            {tree.root.children.slice(0, SHOWN).map((n) => (
              <TreeRow key={n.path} node={n} depth={0} open={tree.openAll} />
            ))}
          </ul>
        ) : (
          <p className="muted">{layer ? 'No file of this layer matches.' : 'This image has no layers.'}</p>
        )}
      </div>
    </div>
  );
}

/**
 * The tree's keys: Up and Down move between rows, Right opens a directory and Left closes it (or
 * goes to its parent), as in a file manager. Tab reaches the directories themselves.
 */
function treeKeys(e: KeyboardEvent<HTMLUListElement>): void {
  const rows = [...e.currentTarget.querySelectorAll<HTMLElement>('.tree-row')];
  const row = (e.target as HTMLElement).closest<HTMLElement>('.tree-row');
  const at = row ? rows.indexOf(row) : -1;
  const item = row?.closest('[role=treeitem]');
  const expanded = item?.getAttribute('aria-expanded');
  let next: HTMLElement | undefined;
  if (e.key === 'ArrowDown') next = rows[at + 1];
  else if (e.key === 'ArrowUp') next = rows[Math.max(at - 1, 0)];
  else if (e.key === 'ArrowRight' && expanded === 'false') row?.click();
  else if (e.key === 'ArrowLeft' && expanded === 'true') row?.click();
  else if (e.key === 'ArrowLeft')
    next =
      item?.parentElement?.closest('[role=treeitem]')?.querySelector<HTMLElement>('.tree-row') ?? undefined;
  else return;
  e.preventDefault();
  next?.focus();
}

function TreeRow({ node, depth, open }: { node: TreeNode; depth: number; open: boolean }) {
  // A directory opens only when the layer has something in it.
  const dir = node.children.length > 0;
  const [expanded, setExpanded] = useState(open || depth === 0);
  const shown = expanded || open;
  const c = node.change;
  const Icon = c?.kind === 'opaque' ? FolderX : isDir(node) ? Folder : c?.type === 'symlink' ? Link : File;
  const label = (
    <>
      {dir ? shown ? <ChevronDown size={14} aria-hidden /> : <ChevronRight size={14} aria-hidden /> : null}
      <Icon size={14} aria-hidden />
      <span className={c ? `kind-${c.kind}` : undefined}>{node.name}</span>
      {c ? (
        <span className={`badge kind-${c.kind}`} title={c.kind}>
          {MARK[c.kind]}
        </span>
      ) : null}
      {c?.target ? <span className="muted">→ {c.target}</span> : null}
      <span className="spacer" />
      <span className="muted">
        {dir ? `${plural(node.counts.added + node.counts.changed + node.counts.removed, 'change')} · ` : ''}
        {dir ? bytes(node.bytes) : c?.type === 'file' ? bytes(c.size) : ''}
      </span>
    </>
  );
  return (
    <li role="treeitem" aria-expanded={dir ? shown : undefined} aria-label={node.path}>
      {dir ? (
        <button className="tree-row" style={{ paddingLeft: depth * 16 }} onClick={() => setExpanded(!shown)}>
          {label}
        </button>
      ) : (
        <div className="tree-row" tabIndex={-1} style={{ paddingLeft: depth * 16 + 14 }}>
          {label}
        </div>
      )}
      {dir && shown ? (
        <ul role="group">
          {node.children.slice(0, SHOWN).map((n) => (
            <TreeRow key={n.path} node={n} depth={depth + 1} open={open} />
          ))}
          {node.children.length > SHOWN ? (
            <li className="muted" style={{ paddingLeft: (depth + 1) * 16 + 14 }}>
              {node.children.length - SHOWN} more: filter to find them
            </li>
          ) : null}
        </ul>
      ) : null}
    </li>
  );
}
