// The builder's ports on svcd's own services: images from the image service and store, step
// containers from the containers service, RUN output from an attach session; a step's rootfs
// mounted and its commit made here, the builder's own business.
import { once } from 'node:events';
import { currentCreateBehaviours } from '../../api/versions';
import type { AttachService } from '../attach/attach-service';
import { prepareRootfs } from '../containers/container-prepare';
import { commitSourceOf } from '../containers/containers-engine';
import type { ContainersService } from '../containers/containers-service';
import type { EngineContext } from '../containers/engine-context';
import { commitImage } from '../images/image-commit';
import { createImage } from '../images/image-import';
import type { ImageService } from '../images/image-service';
import { withLease } from '../images/lease';
import type { BuildContainers, BuildImages } from './build-ports';

export function buildImagesOf(images: ImageService): BuildImages {
  const { store } = images;
  const client = images.deps.client;
  return {
    find: async (refOrId) => {
      const image = await store.find(refOrId);
      return image && { id: image.id, config: image.config };
    },
    pull: (image, auth, emit, signal) => images.pull({ image, auth, emit, signal }),
    parentOf: (id) => store.parentOf(id),
    derive: async (parent, config) => {
      const layers = parent ? (await store.get(parent)).layers : [];
      const image = await withLease(client, (leased) =>
        createImage(store, leased, { layers, config, parent }),
      );
      return image.id;
    },
    truncate: async (source, count, config) => {
      const layers = (await store.get(source)).layers.slice(0, count);
      const image = await withLease(client, (leased) => createImage(store, leased, { layers, config }));
      return image.id;
    },
    tag: (id, name) => images.tag(id, name, undefined),
  };
}

export function buildContainersOf(
  containers: ContainersService,
  attach: AttachService,
  ctx: Pick<EngineContext, 'registry' | 'rootfs' | 'images'>,
  images: ImageService,
): BuildContainers {
  return {
    create: async (body) => (await containers.create({ body, behaviours: currentCreateBehaviours })).Id,
    run: async (id, onOutput, signal) => {
      const session = attach.attach(id, { stdin: false, stdout: true, stderr: true, refusePaused: false });
      session.on('data', onOutput);
      const ended = once(session, 'end');
      const kill = () => void containers.kill(id, 'SIGKILL').catch(() => undefined);
      signal.addEventListener('abort', kill, { once: true });
      try {
        const { result } = await containers.wait(id, 'next-exit');
        await containers.start(id);
        const exit = await result;
        // The output after the exit (still in the pipes) comes before the step's end.
        await ended;
        signal.throwIfAborted();
        return exit.StatusCode;
      } finally {
        signal.removeEventListener('abort', kill);
        session.close();
      }
    },
    rootfs: async (id) => {
      const container = ctx.registry.get(id);
      await prepareRootfs(ctx, container);
      return container.record.Rootfs;
    },
    // The build's config and history line, and no commit event (as dockerd's builder).
    commit: async (id, step) => {
      const container = ctx.registry.get(id);
      await prepareRootfs(ctx, container);
      return commitImage(images, commitSourceOf(container), { pause: false, changes: [] }, step);
    },
    remove: (id) => containers.remove(id, { force: true, volumes: true }),
  };
}
