// A component in a chunk of its own, loaded when first rendered (inside a Suspense), and loaded
// again when that load fails on the way (loadChunk).
import { lazy, type ComponentType } from 'react';
import { loadChunk } from '../../api/network-failures';

export function lazyChunk<P>(load: () => Promise<ComponentType<P>>) {
  return lazy(async () => ({ default: await loadChunk(load) }));
}
