// The OCI spec of a container from its record. Namespaces shared with another container
// (container:<x> modes) exist only while that container runs, so such a spec is built again
// at each start; at create it is built with private namespaces as a placeholder.
import { isDeepStrictEqual } from 'node:util';
import { ConflictError } from '../../api/errors';
import type { HostConfig } from '../../api/container-types';
import { currentCreateBehaviours } from '../../api/versions';
import { validatedSpec } from '../../runtime/oci-spec/build-spec';
import type { NamespacePaths } from '../../runtime/oci-spec/namespaces';
import type { OciSpec } from '../../runtime/oci-spec/oci-types';
import { containerSeccomp } from '../../runtime/oci-spec/seccomp';
import { parseSecurityOpts, type SecurityOptions } from '../../runtime/oci-spec/security-opts';
import { linkEnvironment } from './container-links';
import type { ContainerRecord } from './container-record';
import { isRunning } from './container-state';
import type { EngineContext } from './engine-context';
import { SHIM_GROUP } from './shim-keeper';

const sharedModes = ['PidMode', 'IpcMode', 'NetworkMode'] as const;
const nsFile = { PidMode: 'pid', IpcMode: 'ipc', NetworkMode: 'net' } as const;
const nsKey = { PidMode: 'pid', IpcMode: 'ipc', NetworkMode: 'network' } as const;

function sharedTarget(hostConfig: HostConfig, field: (typeof sharedModes)[number]): string | undefined {
  const mode = hostConfig[field];
  return mode?.startsWith('container:') ? mode.slice('container:'.length) : undefined;
}

export function sharesNamespaces(hostConfig: HostConfig): boolean {
  return sharedModes.some((field) => sharedTarget(hostConfig, field) !== undefined);
}

/** Whether the spec depends on other containers' runs: it is built again at each start. */
export function specNeedsStart(hostConfig: HostConfig): boolean {
  return sharesNamespaces(hostConfig) || !!hostConfig.Links?.length;
}

/** Checks that every container:<x> target exists (404 otherwise). */
export function checkSharedTargets(ctx: EngineContext, hostConfig: HostConfig): void {
  for (const field of sharedModes) {
    const target = sharedTarget(hostConfig, field);
    if (target !== undefined) ctx.registry.get(target);
  }
}

function resolveShared(ctx: EngineContext, hostConfig: HostConfig): NamespacePaths {
  const paths: NamespacePaths = {};
  for (const field of sharedModes) {
    const target = sharedTarget(hostConfig, field);
    if (target === undefined) continue;
    const other = ctx.registry.get(target).record;
    if (!isRunning(other.State)) {
      throw new ConflictError(`cannot join namespaces of a non running container: ${other.Name.slice(1)}`);
    }
    paths[nsKey[field]] = `/proc/${other.State.Pid}/ns/${nsFile[field]}`;
  }
  return paths;
}

/**
 * The spec of a container from its record, validated at its create (so not again here); `security`
 * is the create's parsed security options, when it is the create building it.
 */
export function containerSpec(
  ctx: EngineContext,
  record: ContainerRecord,
  atStart: boolean,
  security?: SecurityOptions,
): OciSpec {
  let hostConfig = record.HostConfig;
  let namespaces: NamespacePaths = {};
  if (Object.keys(record.Networks ?? {}).length > 0) {
    namespaces.network = ctx.networking.netnsPath(record.Id);
  }
  if (sharesNamespaces(hostConfig)) {
    if (atStart) {
      namespaces = { ...namespaces, ...resolveShared(ctx, hostConfig) };
    } else {
      hostConfig = { ...hostConfig };
      for (const field of sharedModes) if (sharedTarget(hostConfig, field)) hostConfig[field] = '';
    }
  }
  // Links give the environment of the linked containers' current runs, so it is set at start.
  const linked = atStart && record.HostConfig.Links?.length ? linkEnvironment(ctx, record) : [];
  const config = linked.length
    ? { ...record.Config, Env: [...linked, ...(record.Config.Env ?? [])] }
    : record.Config;
  return validatedSpec(
    {
      id: record.Id,
      config,
      hostConfig,
      rootfsPath: record.Rootfs,
      behaviours: currentCreateBehaviours,
      host: ctx.host,
      mounts: record.Mounts,
      files: record.Files,
      namespaces,
      shimGroup: SHIM_GROUP,
      defaultSeccomp: ctx.defaultSeccomp,
    },
    security,
  );
}

/**
 * dockerd builds a container's seccomp filter at each start, from the daemon's profile of the
 * moment; svcd builds the spec at create and containerd keeps it. When svcd starts (the only time
 * its profile can change), this brings a stored spec's filter up to date, so that a container
 * created under another --seccomp-profile, or by an svcd without a default profile, runs as it
 * would on dockerd. Answers whether the spec changed.
 */
export async function refreshSeccomp(ctx: EngineContext, record: ContainerRecord): Promise<boolean> {
  const spec = (await ctx.client.containers.get(record.Id)).spec as OciSpec;
  const seccomp = containerSeccomp({
    own: parseSecurityOpts(record.HostConfig.SecurityOpt, ctx.host.appArmor).seccomp,
    daemonDefault: ctx.defaultSeccomp,
    privileged: !!record.HostConfig.Privileged,
    caps: spec.process.capabilities.bounding,
  });
  if (isDeepStrictEqual(spec.linux.seccomp, seccomp)) return false;
  await ctx.client.containers.update(record.Id, { spec: { ...spec, linux: { ...spec.linux, seccomp } } });
  return true;
}
