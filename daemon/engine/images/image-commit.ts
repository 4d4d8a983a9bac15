// POST /commit and a build step's commit: the container's writable layer (diffed by containerd
// against its init layer, so the mount points of the init layer stay out) becomes a new layer on
// the image's, with the container's config and the `changes` applied.
import { randomBytes } from 'node:crypto';
import type { CommitOptions } from '../../api/container-summary-types';
import type { ContainerConfig } from '../../api/container-types';
import type { OciContainerConfig, OciImageConfig } from '../../api/image-types';
import { EMPTY_TAR_DIGEST } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';
import { parseImageAndTag, referenceString } from '../shared/reference';
import { applyChanges } from './image-changes';
import { createImage } from './image-import';
import type { ImageService } from './image-service';
import { withLease } from './lease';

/** What a commit reads of a container: its snapshots, its image and config, its command. */
export interface CommitSource {
  /** The container's ID, also its writable snapshot's key. */
  id: string;
  /** The ID of the image it was made from. */
  image: string;
  initSnapshotKey: string;
  config: ContainerConfig;
  /** The command it ran: a commit's history line. */
  command: string;
}

/** What a build step's commit records: the image config it leaves, and its history line. */
export interface BuildStepCommit {
  config: OciContainerConfig;
  createdBy: string;
  /** MAINTAINER's, carried from step to step. */
  author?: string;
}

function imageConfigOf(config: ContainerConfig): OciContainerConfig {
  const list = (v: string | string[] | null | undefined) =>
    v === undefined || v === null ? null : typeof v === 'string' ? [v] : v;
  return {
    User: config.User ?? '',
    // Left out when there are none, as Docker's image config omits an empty port set.
    ...(Object.keys(config.ExposedPorts ?? {}).length > 0 ? { ExposedPorts: config.ExposedPorts } : {}),
    Env: config.Env ?? null,
    Entrypoint: list(config.Entrypoint),
    Cmd: list(config.Cmd),
    Volumes: config.Volumes ?? null,
    WorkingDir: config.WorkingDir ?? '',
    Labels: config.Labels ?? null,
    ...(config.StopSignal !== undefined ? { StopSignal: String(config.StopSignal) } : {}),
    ...(config.Healthcheck ? { Healthcheck: config.Healthcheck } : {}),
    OnBuild: config.OnBuild ?? null,
  };
}

export async function commitImage(
  images: ImageService,
  source: CommitSource,
  opts: CommitOptions,
  step?: BuildStepCommit,
): Promise<string> {
  const ref = opts.repo ? parseImageAndTag(opts.repo, opts.tag || 'latest') : undefined;
  const parent = await images.store.get(source.image);
  return withLease(images.deps.client, async (leased) => {
    const viewKey = `${source.id}-commit-${randomBytes(4).toString('hex')}`;
    const lower = await leased.snapshots.view(viewKey, source.initSnapshotKey);
    try {
      const upper = await leased.snapshots.mounts(source.id);
      const layer = await leased.diff.diff(lower, upper, { mediaType: MediaTypes.ociLayer });
      // Nothing changed: as dockerd, no layer, only a history entry (the image ID matches Docker's).
      const empty = layer.digest === EMPTY_TAR_DIGEST;
      const created = new Date().toISOString();
      const containerConfig = { ...source.config, ...(opts.config ?? {}) };
      const config: OciImageConfig = {
        ...parent.config,
        created,
        author: step ? (step.author ?? '') : (opts.author ?? ''),
        container: source.id,
        container_config: imageConfigOf(source.config),
        // A build step's image keeps the build's config, not the step container's command.
        config: step ? step.config : applyChanges(imageConfigOf(containerConfig), opts.changes),
        rootfs: {
          type: 'layers',
          diff_ids: [...parent.config.rootfs.diff_ids, ...(empty ? [] : [layer.digest])],
        },
        history: [
          ...(parent.config.history ?? []),
          {
            created,
            author: step ? (step.author ?? '') : (opts.author ?? ''),
            created_by: step ? step.createdBy : source.command,
            comment: opts.comment ?? '',
            ...(empty ? { empty_layer: true } : {}),
          },
        ],
      };
      const image = await createImage(images.store, leased, {
        layers: empty ? parent.layers : [...parent.layers, layer],
        config,
        name: ref && referenceString(ref),
        parent: parent.id,
      });
      if (ref) images.announceTag(image.id, ref);
      return image.id;
    } finally {
      await leased.snapshots.remove(viewKey).catch(() => undefined);
    }
  });
}
