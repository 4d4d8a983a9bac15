// Where runc keeps the state of svcd's tasks (see runtime/containerd/runc-options.ts): in the
// state directory of svcd's own containerd, so that it is this svcd's alone.
import { join } from 'node:path';

/** The runc root of the containerd that owns `containerdDir` (its state/ is in there). */
export function runcRootOf(containerdDir: string): string {
  return join(containerdDir, 'state', 'runc');
}
