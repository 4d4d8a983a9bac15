// Gives memory back to the system once the registry is idle. An upload's body arrives in 64 KiB
// socket buffers, freed only when the collector finds them dead; the C allocator keeps the freed
// space (fragmented among live objects, it cannot shrink its heap), and the collector's heap
// keeps what a burst of requests grew it to: RSS stayed at its high-water mark for good. A second
// after the last request, a collection (svc-registry runs with --expose-gc, as its launchers
// start it) frees the dead objects and buffers and a trim returns the allocator's free pages.
import { returnFreeMemory } from './native/blob-transfer';

const delayMs = 1000;
let pending: NodeJS.Timeout | undefined;

/** Called as each request ends: a second later, unless another ended meanwhile, memory goes back. */
export function returnFreeMemorySoon(): void {
  pending?.refresh();
  pending ??= setTimeout(() => {
    pending = undefined;
    (globalThis as { gc?: () => void }).gc?.();
    returnFreeMemory();
  }, delayMs).unref();
}
