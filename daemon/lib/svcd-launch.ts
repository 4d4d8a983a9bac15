// How svcd is started, shared by everything that starts it (bin/svcd, the desktop app, the test
// harness) and by svcd itself: its default socket and the Node flags it runs with.
import { homedir } from 'node:os';
import { join } from 'node:path';

/** /run/svc as root; otherwise under $XDG_RUNTIME_DIR, or ~/.cache without one. */
export function defaultSvcdSocket(): string {
  if (process.getuid?.() === 0) return '/run/svc/svcd.sock';
  const runtime = process.env.XDG_RUNTIME_DIR || join(homedir(), '.cache');
  return join(runtime, 'svc', 'svcd.sock');
}

/**
 * --initial-old-space-size: svcd's live heap is small (~12 MiB), so V8's default old-space limit
 * sits within a new space of it and every few MB of buffers streamed in a pull started a full
 * mark-compact (~30 per 200 MB pull, ~0.5 s of CPU on GC threads); a 64 MiB starting limit leaves
 * streaming to the scavenger and roughly halves svcd's CPU per pull.
 */
export const svcdNodeFlags: readonly string[] = ['--initial-old-space-size=64'];
