// mount(2), umount2(2), mkfifo(3), a new network namespace, mknod(2), lsetxattr(2) and one socket
// ioctl from svcd's own process (host-calls.c, built into build/native/ by build:node), instead of
// a mount(8), umount(8), mkfifo(1) or unshare(1) process each; mknod and lsetxattr apply image
// layers (Node binds neither).
import { join } from 'node:path';
import { repoRoot } from './product';

type Done = (error: string | null) => void;

interface Native {
  mount(
    source: string,
    target: string,
    fstype: string | null,
    flags: number,
    data: string | null,
    done: Done,
  ): void;
  umount(target: string, flags: number, done: Done): void;
  mkfifo(paths: string[], mode: number, done: Done): void;
  /** A new network namespace bind-mounted on `target` (an existing file), its lo up. */
  netns(target: string, done: Done): void;
  /** `mode` carries the S_IF* type bits (S_IFCHR, S_IFBLK) and the permissions. */
  mknod(path: string, mode: number, major: number, minor: number, done: Done): void;
  lsetxattr(path: string, name: string, value: Buffer, done: Done): void;
  /** SIOCOUTQ of a unix stream socket: what its peer has not read yet, or -errno. */
  unreadBytes(fd: number): number;
}

/** MS_* bits of mount(2) (linux/mount.h). */
export const MS_RDONLY = 0x1;
export const MS_NOSUID = 0x2;
export const MS_NODEV = 0x4;
export const MS_NOEXEC = 0x8;
export const MS_BIND = 0x1000;
/** umount2(2)'s lazy unmount. */
export const MNT_DETACH = 0x2;

/** An errno from a host call: `code` is its name (EBUSY, EINVAL...). */
export class HostCallError extends Error {
  readonly code: string;
  constructor(message: string) {
    super(message);
    this.code = message.split(':')[0];
  }
}

let loaded: Native | null | undefined;

/** The module, or null where it cannot load (not built): the callers then run the programs. */
export function hostCalls(): Native | null {
  if (loaded === undefined) {
    try {
      const module = { exports: {} };
      process.dlopen(module, join(repoRoot(), 'build', 'native', 'host-calls.node'));
      loaded = module.exports as Native;
    } catch {
      loaded = null;
    }
  }
  return loaded;
}

/** A host call as a promise. */
export function call(fn: (done: Done) => void): Promise<void> {
  return new Promise((resolve, reject) =>
    fn((error) => (error === null ? resolve() : reject(new HostCallError(error)))),
  );
}
