// User and GroupAdd → process.user, resolved from the rootfs's /etc/passwd and /etc/group with
// the rules runc's libcontainer/user applies for Docker: `name`, `uid`, `uid:gid`,
// `name:group`; supplementary groups by membership only when no group is given.
import { readFileSync } from 'node:fs';
import { InvalidParameterError } from '../../api/errors';
import type { OciUser } from './oci-types';
import { resolveInRootfs } from './rootfs-path';

interface PasswdEntry {
  name: string;
  uid: number;
  gid: number;
}

interface GroupEntry {
  name: string;
  gid: number;
  members: string[];
}

const MAX_ID = 2 ** 31 - 1;

function readLines(rootfs: string, path: string): string[][] {
  let text: string;
  try {
    text = readFileSync(resolveInRootfs(rootfs, path), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => line.split(':'));
}

export function readPasswd(rootfs: string): PasswdEntry[] {
  return readLines(rootfs, '/etc/passwd').map(([name, , uid, gid]) => ({
    name,
    uid: Number(uid),
    gid: Number(gid),
  }));
}

export function readGroups(rootfs: string): GroupEntry[] {
  return readLines(rootfs, '/etc/group').map(([name, , gid, members = '']) => ({
    name,
    gid: Number(gid),
    members: members.split(',').filter(Boolean),
  }));
}

function numericId(text: string): number | undefined {
  if (!/^\d+$/.test(text)) return undefined;
  const id = Number(text);
  return id <= MAX_ID ? id : undefined;
}

function findGroup(groups: GroupEntry[], arg: string): number | undefined {
  const id = numericId(arg);
  return groups.find((g) => g.name === arg || (id !== undefined && g.gid === id))?.gid ?? id;
}

/** Resolves `user` (and GroupAdd) against the rootfs; throws when a name is not found. */
export function resolveUser(
  rootfs: string,
  user: string | undefined,
  groupAdd: string[] | null | undefined,
): OciUser {
  const spec = user ?? '';
  const colon = spec.indexOf(':');
  const userArg = colon < 0 ? spec : spec.slice(0, colon);
  const groupArg = colon < 0 ? '' : spec.slice(colon + 1);
  const passwd = readPasswd(rootfs);
  const groups = readGroups(rootfs);

  const uidArg = numericId(userArg === '' ? '0' : userArg);
  const entry = passwd.find((p) => p.name === userArg || (uidArg !== undefined && p.uid === uidArg));
  if (!entry && uidArg === undefined) {
    throw new InvalidParameterError(`unable to find user ${userArg}: no matching entries in passwd file`);
  }
  const result: OciUser = { uid: entry?.uid ?? (uidArg as number), gid: entry?.gid ?? 0 };
  const additional: number[] = [];
  if (groupArg !== '') {
    const gid = findGroup(groups, groupArg);
    if (gid === undefined)
      throw new InvalidParameterError(`unable to find group ${groupArg}: no matching entries in group file`);
    result.gid = gid;
  } else if (entry) {
    additional.push(...groups.filter((g) => g.members.includes(entry.name)).map((g) => g.gid));
  }
  for (const name of groupAdd ?? []) {
    const gid = findGroup(groups, name);
    if (gid === undefined) throw new InvalidParameterError(`Unable to find group ${name}`);
    additional.push(gid);
  }
  if (additional.length > 0) result.additionalGids = [...new Set(additional)];
  return result;
}
