// A create records the container and answers, as dockerd's does; containerd's side of it (the
// writable layer on the image's init layer, mounted at the record's Rootfs, and containerd's
// container with its spec) is made by the first call that needs it: a start, or a call on the
// container's files (archive, export, changes, commit, a build's copy). The spec reads the
// mounted files (the user in /etc/passwd), so its errors come at the start, as dockerd's do.
// Each step finds what an earlier try made, so what a crash cut short is completed next time.
import { isAlreadyExists } from '../../runtime/containerd/grpc-errors';
import { createWorkingDir } from '../../runtime/oci-spec/build-spec';
import type { Container } from './container';
import { containerSpec, specNeedsStart } from './container-spec';
import type { EngineContext } from './engine-context';

/** The container's root filesystem mounted, with its working directory in it. */
export async function prepareRootfs(
  ctx: Pick<EngineContext, 'rootfs' | 'images'>,
  container: Container,
): Promise<void> {
  const r = container.record;
  const fresh = !container.layerMade;
  container.layerMade = true;
  await ctx.rootfs.prepare(container.id, r.InitSnapshotKey, r.Rootfs, {
    fresh,
    image: () => ctx.images.resolveForContainer(r.Image),
  });
  // As dockerd's create makes it: there for whoever looks at the files before the start.
  if (fresh) createWorkingDir(r.Rootfs, r.Config.WorkingDir || '/');
}

/**
 * Before a task: the root filesystem, and containerd's container with the spec of this start,
 * made at the first start, and made again at each when it depends on other containers' runs.
 */
export async function prepareRuntime(ctx: EngineContext, container: Container): Promise<void> {
  await prepareRootfs(ctx, container);
  const r = container.record;
  const { containers } = ctx.client;
  if (container.runtimeMade) {
    if (specNeedsStart(r.HostConfig)) await containers.update(r.Id, { spec: containerSpec(ctx, r, true) });
    return;
  }
  const spec = containerSpec(ctx, r, true);
  container.runtimeMade = true;
  await containers
    .create({
      id: r.Id,
      spec,
      image: r.Config.Image ?? '',
      labels: { 'svc.name': r.Name.slice(1) },
      snapshotKey: r.Id,
    })
    .catch(async (err: unknown) => {
      // Made by a start that svcd was killed in.
      if (!isAlreadyExists(err)) throw err;
      await containers.update(r.Id, { spec });
    });
}
