// Gives memory freed after writes back to the system. An upload's body arrives in 64 KiB socket
// buffers, freed only when the collector finds them dead; the C allocator keeps the freed space
// (fragmented among live objects, it cannot shrink its heap) and the registry's RSS stayed at its
// high-water mark for good. A second after the last write, a collection (when svc-registry runs
// with --expose-gc, as its launchers start it) frees the dead buffers and a trim returns them.
import { returnFreeMemory } from './native/blob-sendfile';

const delayMs = 1000;
let pending: NodeJS.Timeout | undefined;

export function returnFreeMemorySoon(): void {
  pending?.refresh();
  pending ??= setTimeout(() => {
    pending = undefined;
    (globalThis as { gc?: () => void }).gc?.();
    returnFreeMemory();
  }, delayMs).unref();
}
