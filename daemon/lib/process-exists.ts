// Whether a process ID is in use: signal 0 checks without sending anything.

/** True while the pid exists, also when it belongs to another user (EPERM). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
