// The layer explorer's wire types: what the gateway answers on GET …/images/{name}/layer-files.

/** How a layer changes one path of the layers below it. */
export type LayerChangeKind = 'added' | 'changed' | 'removed' | 'opaque';

/** One path a layer adds, changes or removes (a whiteout), or a directory it makes opaque. */
export interface LayerChange {
  path: string;
  kind: LayerChangeKind;
  type: 'file' | 'directory' | 'symlink' | 'link' | 'other';
  /** Bytes of a file; for a removed path, what it had below. */
  size: number;
  /** A symlink's or hardlink's target. */
  target?: string;
}

export interface LayerFiles {
  /** The layer's path in the engine's `docker save` archive. */
  archivePath: string;
  /** The uncompressed layer tar's size. */
  tarSize: number;
  changes: LayerChange[];
}

/**
 * GET /engine/images/{name}/layer-files (and /engines/{id}/…): a gateway extension that works on
 * every engine, since Docker has no such API. Computed from the image's `docker save` archive,
 * streamed and read once; the layers are bottom first, as the image's RootFS.Layers.
 */
export interface ImageLayerFiles {
  layers: LayerFiles[];
  /** Set when the image had more entries than the gateway lists; the rest are left out. */
  truncated: boolean;
}
