// Links (`--link other:alias`), as Docker keeps them: recorded as `/other:/me/alias`. On the
// default bridge (legacy links) the linked container, which must be running, gives the linking
// one environment variables (ALIAS_PORT_80_TCP=..., ALIAS_NAME, ALIAS_ENV_X) at each start; on
// the default bridge and on user networks, the alias resolves to its address in /etc/hosts.
// `rm --link` removes one.
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type { Container } from './container';
import type { ContainerRecord } from './container-record';
import { isRunning } from './container-state';
import type { EngineContext } from './engine-context';

interface Link {
  /** The linked container's name or ID as given. */
  target: string;
  alias: string;
}

function parseLink(spec: string): Link {
  // Stored form `/other:/me/alias`, or as a client sends it, `other[:alias]`.
  const [rawTarget, rawAlias] = spec.split(':', 2);
  const target = rawTarget.replace(/^\//, '');
  const alias = (rawAlias ?? target).split('/').pop()!;
  if (!target || !alias) throw new InvalidParameterError(`invalid link: ${JSON.stringify(spec)}`);
  return { target, alias };
}

/** The aliases under which an endpoint's links (`target[:alias]`) name the container `record`. */
export function aliasesLinking(links: string[] | null | undefined, record: ContainerRecord): string[] {
  return (links ?? [])
    .map(parseLink)
    .flatMap(({ target, alias }) =>
      record.Name.slice(1) === target || record.Id.startsWith(target) ? [alias] : [],
    );
}

/** The links of a new container in Docker's stored form; every target must exist. */
export function normaliseLinks(
  ctx: EngineContext,
  name: string,
  links: string[] | null | undefined,
): string[] | null {
  if (!links?.length) return links ?? null;
  return links.map((spec) => {
    const { target, alias } = parseLink(spec);
    const other = ctx.registry.find(target);
    // 400, not 404: the docker CLI takes a 404 from create for a missing image and would pull.
    if (!other)
      throw new InvalidParameterError(`could not get container for ${target}: No such container: ${target}`);
    if (other.record.HostConfig.NetworkMode?.startsWith('container:')) {
      throw new InvalidParameterError(
        `conflicting options: cannot link to ${target}, it shares the network stack of another container`,
      );
    }
    return `${other.record.Name}:${name}/${alias}`;
  });
}

interface Linked {
  name: string;
  alias: string;
  ip: string;
  record: ContainerRecord;
}

/**
 * The running containers a record links to, with their address on the network they share: the
 * default bridge (legacy links), or else a user network (where a link is an alias the linking
 * container resolves). At a start on the default bridge one that is not running is a 409;
 * elsewhere, and when rewriting /etc/hosts, it is left out.
 */
function linkedOf(ctx: EngineContext, record: ContainerRecord, strict: boolean): Linked[] {
  const onBridge = !!record.Networks?.bridge;
  return (record.HostConfig.Links ?? []).flatMap((spec) => {
    const { target, alias } = parseLink(spec);
    const other = ctx.registry.find(target);
    const name = `${record.Name}/${alias}`;
    const network = onBridge
      ? 'bridge'
      : Object.keys(record.Networks ?? {}).find((n) => other?.record.Endpoints?.[n]);
    const ip = network ? other?.record.Endpoints?.[network]?.IPAddress : undefined;
    if (!other || !isRunning(other.record.State) || !ip) {
      if (!strict || !onBridge) return [];
      throw new ConflictError(`Cannot link to a non running container: /${target} AS ${name}`);
    }
    return [{ name, alias, ip, record: other.record }];
  });
}

/** Ports as Docker sorts them for links: by number, tcp before others at the same number. */
function sortedPorts(
  exposed: Record<string, unknown> | null | undefined,
): Array<{ port: number; proto: string }> {
  return Object.keys(exposed ?? {})
    .map((key) => {
      const [port, proto = 'tcp'] = key.split('/');
      return { port: Number(port), proto: proto.toLowerCase() };
    })
    .sort((a, b) => a.port - b.port || (a.proto === 'tcp' ? -1 : b.proto === 'tcp' ? 1 : 0));
}

function envOf(link: Linked): string[] {
  const alias = link.alias.toUpperCase().replace(/-/g, '_');
  const ports = sortedPorts(link.record.Config.ExposedPorts);
  const env: string[] = [];
  if (ports.length > 0) env.push(`${alias}_PORT=${ports[0].proto}://${link.ip}:${ports[0].port}`);
  const key = (p: { port: number; proto: string }) => `${alias}_PORT_${p.port}_${p.proto.toUpperCase()}`;
  for (let i = 0; i < ports.length;) {
    let j = i;
    while (j + 1 < ports.length && ports[j + 1].port === ports[j].port + 1) j++;
    const p = ports[i];
    if (j > i + 1) {
      // A run of consecutive ports is also described as a range.
      const q = ports[j];
      env.push(
        `${key(p)}_START=${p.proto}://${link.ip}:${p.port}`,
        `${key(p)}_ADDR=${link.ip}`,
        `${key(p)}_PROTO=${p.proto}`,
        `${key(p)}_PORT_START=${p.port}`,
        `${alias}_PORT_${p.port}_${q.proto.toUpperCase()}_END=${q.proto}://${link.ip}:${q.port}`,
        `${alias}_PORT_${p.port}_${q.proto.toUpperCase()}_PORT_END=${q.port}`,
      );
    }
    for (const each of ports.slice(i, j + 1)) {
      env.push(
        `${key(each)}=${each.proto}://${link.ip}:${each.port}`,
        `${key(each)}_ADDR=${link.ip}`,
        `${key(each)}_PORT=${each.port}`,
        `${key(each)}_PROTO=${each.proto}`,
      );
    }
    i = j + 1;
  }
  env.push(`${alias}_NAME=${link.name}`);
  for (const entry of link.record.Config.Env ?? []) {
    const eq = entry.indexOf('=');
    if (eq < 0) continue;
    const name = entry.slice(0, eq);
    // As Docker: the variables every image has say nothing about the linked service.
    if (name === 'HOME' || name === 'PATH') continue;
    env.push(`${alias}_ENV_${name}=${entry.slice(eq + 1)}`);
  }
  return env;
}

/** The environment links add at a start: legacy links on the default bridge only, as Docker. */
export function linkEnvironment(ctx: EngineContext, record: ContainerRecord): string[] {
  if (!record.Networks?.bridge) return [];
  return linkedOf(ctx, record, true).flatMap(envOf);
}

/** The /etc/hosts lines of the links: address, alias, the linked container's ID and name. */
export function linkHostsLines(ctx: EngineContext, record: ContainerRecord): string[] {
  return linkedOf(ctx, record, false).map((l) => {
    const name = l.record.Name.slice(1);
    const names = [...new Set([l.alias, l.record.Config.Hostname || l.record.Id.slice(0, 12), name])];
    return `${l.ip}\t${names.join(' ')}`;
  });
}

/**
 * `docker rm --link /parent/alias`: the parent's legacy link of that alias goes; the linked
 * container stays. The name is the link's, `parent/alias`, as dockerd names links.
 */
export function removeLink(ctx: EngineContext, linkName: string): Container {
  const name = linkName.replace(/^\/+/, '');
  const slash = name.lastIndexOf('/');
  if (slash < 0) throw new ConflictError('Conflict, cannot remove the default link name of the container');
  const parent = ctx.registry.find(name.slice(0, slash));
  const alias = name.slice(slash + 1);
  const links = parent?.record.HostConfig.Links ?? [];
  const kept = links.filter((spec) => parseLink(spec).alias !== alias);
  if (!parent || kept.length === links.length) throw new NotFoundError(`No such container: ${name}`);
  parent.record.HostConfig.Links = kept.length ? kept : null;
  return parent;
}
