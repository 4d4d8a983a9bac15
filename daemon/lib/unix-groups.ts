// Group lookups for the API socket's ownership, through NSS (getent) as dockerd's --group does.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** The gid of a group given by name or number; undefined when no such group exists. */
export async function groupId(nameOrId: string): Promise<number | undefined> {
  try {
    const { stdout } = await run('getent', ['group', nameOrId]);
    const gid = Number(stdout.split(':')[2]);
    return Number.isInteger(gid) ? gid : undefined;
  } catch {
    // getent exits 2 for an unknown group.
    return /^\d+$/.test(nameOrId) ? Number(nameOrId) : undefined;
  }
}
