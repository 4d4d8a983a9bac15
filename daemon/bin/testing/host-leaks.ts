// What one svcd holds on the host, each thing attributed to the container it serves: mounts
// and FIFOs under its directory, cgroups, runc state, shims, veths on its bridge and iptables
// rules. Cgroups and iptables are shared with every other svcd on the machine, so only the IDs
// this svcd is known to have used are looked at there.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shimsOf } from './shim-processes';
import { DEFAULT_CGROUP_PARENT } from '../../runtime/oci-spec/build-spec';
import { runcStateDir } from '../../testing/svcd-harness';
const CGROUP_ROOT = '/sys/fs/cgroup';

export interface EngineFootprint {
  /** The harness directory: the data root, the socket, all under it. */
  dir: string;
  dataRoot: string;
  bridge: string;
  /** Every container ID this svcd may have used (created, removed, the shim keeper). */
  knownIds: Set<string>;
}

export interface Allowed {
  /** Containers that exist: their rootfs may stay mounted and their stdio FIFOs stay. */
  existing: Set<string>;
  /** Running or paused containers, and the shim keeper while svcd runs: everything else too. */
  live: Set<string>;
  /** Shim processes serving this svcd (one shared shim, or none). */
  shims: number;
}

const hexId = /[0-9a-f]{64}|svc-shim-keeper-[0-9a-f]{16}/;

function listDir(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

function filesUnder(dir: string): string[] {
  try {
    return readdirSync(dir, { recursive: true }).map((f) => join(dir, String(f)));
  } catch {
    return [];
  }
}

/** Mounts under the directory: rootfs of existing containers, network namespaces of live ones. */
function mountLeaks(f: EngineFootprint, a: Allowed): string[] {
  return readFileSync('/proc/mounts', 'utf8')
    .split('\n')
    .map((l) => l.split(' ')[1])
    .filter((m) => m?.startsWith(`${f.dir}/`))
    .filter((m) => {
      const rootfs = /\/containers\/([0-9a-f]{64})\/rootfs$/.exec(m);
      if (rootfs) return !a.existing.has(rootfs[1]);
      const netns = /\/netns\/([0-9a-f]{64})$/.exec(m);
      return !(netns && a.live.has(netns[1]));
    })
    .map((m) => `mount ${m}`);
}

/**
 * FIFOs: a container's own while it exists (its stdio, and the few exec FIFO directories svcd
 * keeps for reuse); containerd's task FIFOs while it lives.
 */
function fifoLeaks(f: EngineFootprint, a: Allowed): string[] {
  return filesUnder(f.dataRoot)
    .filter((p) => {
      try {
        return statSync(p).isFIFO();
      } catch {
        return false;
      }
    })
    .filter((p) => {
      const own = /\/containers\/([0-9a-f]{64})\/(io|exec)\//.exec(p);
      if (own) return !a.existing.has(own[1]);
      const owner = hexId.exec(p.slice(f.dataRoot.length))?.[0];
      return !(owner && a.live.has(owner));
    })
    .map((p) => `fifo ${p}`);
}

/** The cgroups (any controller) of known IDs that do not live; svcd's runc state of any that do not. */
function cgroupAndRuncLeaks(f: EngineFootprint, a: Allowed): string[] {
  const dead = (id: string) => f.knownIds.has(id) && !a.live.has(id);
  const out: string[] = [];
  for (const controller of listDir(CGROUP_ROOT)) {
    const parent = join(CGROUP_ROOT, controller, DEFAULT_CGROUP_PARENT);
    for (const id of listDir(parent).filter(dead)) out.push(`cgroup ${join(parent, id)}`);
  }
  const runcRoot = runcStateDir(f.dataRoot);
  for (const id of listDir(runcRoot).filter((i) => !a.live.has(i))) {
    out.push(`runc state ${join(runcRoot, id)}`);
  }
  return out;
}

/** Host ends of veths on the bridge: one per live container on it (all soak containers are). */
function vethLeaks(f: EngineFootprint, a: Allowed): string[] {
  let out: string;
  try {
    out = execFileSync('ip', ['-o', 'link', 'show', 'master', f.bridge], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch {
    return []; // no bridge (yet, or any more): nothing on it
  }
  const veths = out.split('\n').filter((l) => / veth/.test(l));
  const onBridge = [...a.live].filter((id) => hexId.test(id) && !id.startsWith('svc-shim-keeper-'));
  return veths.length > onBridge.length
    ? [`${veths.length} veths on ${f.bridge} for ${onBridge.length} live containers`]
    : [];
}

/** iptables rules whose CNI comment names a known container that does not live. */
function iptablesLeaks(f: EngineFootprint, a: Allowed): string[] {
  const out: string[] = [];
  for (const table of ['nat', 'filter']) {
    const rules = execFileSync('iptables', ['-w', '5', '-t', table, '-S'], { encoding: 'utf8' });
    for (const rule of rules.split('\n')) {
      const id = /id: \\"([0-9a-f]{64})\\"/.exec(rule)?.[1];
      if (id && f.knownIds.has(id) && !a.live.has(id)) out.push(`iptables -t ${table} ${rule}`);
    }
  }
  return out;
}

/** Everything the svcd holds beyond what `allowed` accounts for, one line each. */
export function hostLeaks(f: EngineFootprint, a: Allowed): string[] {
  const shims = shimsOf(f.dataRoot);
  return [
    ...mountLeaks(f, a),
    ...fifoLeaks(f, a),
    ...cgroupAndRuncLeaks(f, a),
    ...(shims.length > a.shims
      ? [`${shims.length} shims (pids ${shims.join(' ')}), ${a.shims} expected`]
      : []),
    ...vethLeaks(f, a),
    ...iptablesLeaks(f, a),
  ];
}
