// POST /containers/create: validate everything first, then allocate (name, volumes, /etc files,
// the record) with a rollback for each step, so that a failure halfway leaves nothing behind.
// containerd's side (the writable layer and containerd's container) waits for the first call
// that needs it (container-prepare.ts), unless the create itself needs the files: volumes are
// filled from the image and the working directory made at create, as dockerd does.
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import type { ContainerCreateRequest, ContainerCreateResponse, LegacyStart } from '../../api/container-types';
import { InvalidParameterError } from '../../api/errors';
import { defaultHostname } from '../../runtime/oci-spec/build-spec';
import {
  inheritVolumesFrom,
  parseVolumesFrom,
  planMounts,
  resolveMounts,
} from '../../runtime/oci-spec/mount-plan';
import type { MountRequest, ResolvedMount } from '../../runtime/oci-spec/mount-types';
import { mergeCommand, processArgs } from '../../runtime/oci-spec/process-args';
import { validateCreate } from '../../runtime/oci-spec/validate-create';
import { Container } from './container';
import { ContainerIO } from './container-io';
import { writeContainerFiles } from './container-files';
import { checkNetworkMode } from './container-network';
import { type ContainerRecord, freshState, nowRfc3339Nano } from './container-record';
import { type EngineContext, publishContainerEvent, saveRecord } from './engine-context';
import { randomName } from './random-name';
import { normaliseLinks } from './container-links';
import { prepareRootfs } from './container-prepare';
import { checkSharedTargets, containerSpec } from './container-spec';

type Undo = () => Promise<unknown>;

/** Whether a container other than those being removed still stands on the init layer. */
export function initShared(ctx: EngineContext, initKey: string, except?: string): boolean {
  return ctx.registry.all().some((c) => c.id !== except && c.record.InitSnapshotKey === initKey);
}

/** Volumes a create resolves are filled from the image's files: the root filesystem is needed then. */
function fillsVolumes(plan: MountRequest[]): boolean {
  return plan.some((m) => m.Type === 'volume');
}

function pickName(ctx: EngineContext, requested: string | undefined): string {
  if (requested) return `/${requested}`;
  for (let retry = 0; ; retry++) {
    const name = `/${randomName(retry)}`;
    if (!ctx.registry.hasName(name)) return name;
  }
}

function inheritedMounts(ctx: EngineContext, entries: string[] | null | undefined): ResolvedMount[] {
  return (entries ?? []).flatMap((entry) => {
    const parsed = parseVolumesFrom(entry);
    return inheritVolumesFrom(parsed, ctx.registry.get(parsed.container).record.Mounts);
  });
}

export async function createContainer(
  ctx: EngineContext,
  req: ContainerCreateRequest,
): Promise<ContainerCreateResponse> {
  const { HostConfig: rawHostConfig, NetworkingConfig: networking, ...rawConfig } = req.body;
  if (!rawConfig.Image)
    throw new InvalidParameterError('Config cannot be empty in order to create a container');
  const image = await ctx.images.resolveForContainer(rawConfig.Image);
  const validated = validateCreate({
    name: req.name,
    swarmTask: req.swarmTask,
    config: rawConfig,
    hostConfig: rawHostConfig ?? {},
    behaviours: req.behaviours,
    host: ctx.host,
    image: image.config,
  });
  const { config, hostConfig, warnings } = validated;
  config.Image = rawConfig.Image;
  const network = checkNetworkMode(hostConfig.NetworkMode, config.NetworkDisabled);
  if (!hostConfig.NetworkMode) hostConfig.NetworkMode = 'default';
  checkSharedTargets(ctx, hostConfig);
  const networks = ctx.networking.attachmentsFor(network, networking?.EndpointsConfig, config.MacAddress);
  const volumesFrom = inheritedMounts(ctx, hostConfig.VolumesFrom);
  const plan = planMounts({ config, hostConfig, volumesFrom });

  const id = randomBytes(32).toString('hex');
  const name = pickName(ctx, validated.name);
  hostConfig.Links = normaliseLinks(ctx, name, hostConfig.Links);
  ctx.registry.reserveName(name, id);
  const undo: Undo[] = [async () => ctx.registry.releaseName(name, id)];
  // Volumes resolved for this container, held until its record is registered (or rolled back).
  const reserved: string[] = [];
  // Side work done beside the rest of the create; each settles to its error, if any.
  const sideWork: Array<Promise<unknown>> = [];
  const alongside = (work: Promise<unknown>) =>
    sideWork.push(
      work.then(
        () => undefined,
        (err: unknown) => err,
      ),
    );
  try {
    const dir = ctx.paths.dir(id);
    await mkdir(dir, { recursive: true, mode: 0o710 });
    undo.push(() => rm(dir, { recursive: true, force: true }));
    alongside(
      ContainerIO.prepare({ dir: ctx.paths.io(id), openStdin: !!config.OpenStdin, tty: !!config.Tty }, true),
    );
    const files = {
      hostsPath: ctx.paths.hosts(id),
      resolvConfPath: ctx.paths.resolvConf(id),
      hostnamePath: ctx.paths.hostname(id),
    };
    const hostname = config.Hostname || defaultHostname(id, hostConfig, ctx.host);
    const filesWritten = writeContainerFiles(files, {
      config,
      hostConfig,
      hostname,
      hostNetwork: network.kind === 'host',
    });
    alongside(filesWritten);
    const initKey = await ctx.rootfs.initLayer(image);
    undo.push(async () => ctx.rootfs.leaveInitLayer(initKey, initShared(ctx, initKey)));
    const args = processArgs(mergeCommand(config, undefined));
    const record: ContainerRecord = {
      Id: id,
      Created: nowRfc3339Nano(),
      Name: name,
      Path: args[0],
      Args: args.slice(1),
      // With another container's network or the host's UTS namespace the hostname is not ours to set.
      Config: {
        ...config,
        Hostname: network.kind === 'container' || hostConfig.UTSMode ? config.Hostname : hostname,
      },
      HostConfig: hostConfig,
      Image: image.id,
      State: freshState(),
      RestartCount: 0,
      ManuallyStopped: false,
      Mounts: [],
      AnonymousVolumes: [],
      Files: files,
      Rootfs: ctx.paths.rootfs(id),
      SnapshotKey: id,
      InitSnapshotKey: initKey,
      Driver: ctx.client.snapshotter,
      NetworkMode: network.kind,
      Networks: networks,
    };
    const container = new Container(record);
    container.layerMade = false;
    container.runtimeMade = false;
    if (fillsVolumes(plan) || (config.WorkingDir || '/') !== '/') {
      undo.push(() => ctx.rootfs.removeLayer(id, record.Rootfs));
      await prepareRootfs(ctx, container);
    }

    const anonymous = record.AnonymousVolumes;
    undo.push(async () => {
      ctx.volumes.settle(reserved.splice(0));
      await Promise.all(anonymous.map((v) => ctx.volumes.removeAnonymous(v, id)));
    });
    record.Mounts = await resolveMounts(plan, async (request) => {
      const volume = await ctx.volumes.resolve(request, record.Rootfs);
      reserved.push(volume.Name);
      if (volume.created && request.Name === '') anonymous.push(volume.Name);
      return volume;
    });
    // The record is written while the FIFOs are made (a start makes those it misses): a create
    // failing after it goes with its directory, record included, before it answers.
    await filesWritten;
    alongside(saveRecord(ctx, container));
    const failure = (await Promise.all(sideWork)).find((err) => err !== undefined);
    if (failure) throw failure;
    ctx.registry.add(container);
    ctx.volumes.settle(reserved.splice(0));
    publishContainerEvent(ctx, container, 'create');
    return { Id: id, Warnings: warnings };
  } catch (err) {
    await Promise.all(sideWork);
    for (const step of undo.reverse()) await step().catch(() => undefined);
    throw err;
  }
}

/** Older clients may give the HostConfig to start instead of create: it replaces the old one. */
export async function applyLegacyHostConfig(
  ctx: EngineContext,
  container: Container,
  legacy: LegacyStart,
): Promise<void> {
  const record = container.record;
  const { hostConfig, security } = validateCreate({
    config: record.Config,
    hostConfig: legacy.hostConfig,
    behaviours: legacy.behaviours,
    host: ctx.host,
  });
  const network = checkNetworkMode(hostConfig.NetworkMode, record.Config.NetworkDisabled);
  if (!hostConfig.NetworkMode) hostConfig.NetworkMode = 'default';
  checkSharedTargets(ctx, hostConfig);
  const plan = planMounts({
    config: record.Config,
    hostConfig,
    volumesFrom: inheritedMounts(ctx, hostConfig.VolumesFrom),
  });
  const reserved: string[] = [];
  if (fillsVolumes(plan)) await prepareRootfs(ctx, container);
  try {
    record.Mounts = await resolveMounts(plan, async (request) => {
      const volume = await ctx.volumes.resolve(request, record.Rootfs);
      reserved.push(volume.Name);
      return volume;
    });
  } finally {
    // The container is registered already: its record now holds what it uses.
    ctx.volumes.settle(reserved);
  }
  hostConfig.Links = normaliseLinks(ctx, record.Name, hostConfig.Links);
  record.HostConfig = hostConfig;
  record.NetworkMode = network.kind;
  record.Networks = ctx.networking.attachmentsFor(network, undefined, record.Config.MacAddress);
  // Otherwise its first start makes containerd's container with the spec of then.
  if (container.runtimeMade) {
    await prepareRootfs(ctx, container);
    await ctx.client.containers.update(record.Id, { spec: containerSpec(ctx, record, false, security) });
  }
  await saveRecord(ctx, container);
}
