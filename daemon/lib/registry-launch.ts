// The Node flags and environment svc-registry runs with, shared by everything that starts it
// (bin/svc-registry, the desktop app, the test and bench helpers).

/**
 * --max-semi-space-size=1: every socket read of an upload is a 64 KiB buffer that lives until the
 * scavenge that finds its small JS wrapper dead; with V8's default 16 MiB semi-spaces tens of MB
 * of them piled up between scavenges and left the allocator's heap that large for good (RSS
 * 106 MB after a mixed push/pull run, 86 MB with this flag, at the same speed).
 *
 * --expose-gc: a second after the last request the registry collects its garbage, then trims the
 * allocator (registry/free-memory.ts): upload buffers die in the collector's own time, and a trim
 * before they do frees nothing. The collection costs a few ms on the registry's small heap.
 */
export const registryNodeFlags: readonly string[] = ['--max-semi-space-size=1', '--expose-gc'];

/**
 * MALLOC_ARENA_MAX=1: one allocator arena instead of one per thread that allocates (the thread
 * pool's and V8's): the idle trim then has one heap to shrink, and the registry kept ~3 MB less
 * at rest after the bench's runs. Its threads allocate little, so sharing the arena costs nothing
 * measurable.
 */
export const registryEnv: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: '1' };
