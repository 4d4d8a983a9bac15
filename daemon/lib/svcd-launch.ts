// How svcd is started, shared by everything that starts it (bin/svcd, the desktop app, the test
// harness) and by svcd itself: its default socket and the Node flags it runs with.
import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Root of the host, not the root of a rootlesskit namespace: there uid 0 is the user who started
 * rootless svcd (rootlesskit names that user in ROOTLESSKIT_PARENT_EUID), and the defaults are theirs.
 */
export function isHostRoot(): boolean {
  return process.getuid?.() === 0 && !process.env.ROOTLESSKIT_PARENT_EUID;
}

/** The socket of the system's svcd (the package's systemd unit), and of any svcd root starts. */
export const systemSvcdSocket = '/run/svc/svcd.sock';

/** /run/svc as root; otherwise $XDG_RUNTIME_DIR/svcd.sock (as rootless Docker's), or under ~/.cache. */
export function defaultSvcdSocket(): string {
  if (isHostRoot()) return systemSvcdSocket;
  if (process.env.XDG_RUNTIME_DIR) return join(process.env.XDG_RUNTIME_DIR, 'svcd.sock');
  return join(homedir(), '.cache', 'svc', 'svcd.sock');
}

/**
 * --initial-old-space-size: svcd's live heap is small (~12 MiB), so V8's default old-space limit
 * sits within a new space of it and every few MB of buffers streamed in a pull started a full
 * mark-compact (~30 per 200 MB pull, ~0.5 s of CPU on GC threads); a 64 MiB starting limit leaves
 * streaming to the scavenger and roughly halves svcd's CPU per pull.
 */
export const svcdNodeFlags: readonly string[] = ['--initial-old-space-size=64'];
