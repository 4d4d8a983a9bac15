// The wire views of stored images: list summaries, inspect and history, as Docker shows them.
import { containerConfigDefaults, withDefaults } from '../../api/container-defaults';
import type { ImageHistoryItem, ImageInspect, ImageSummary } from '../../api/image-types';
import { familiarString } from '../shared/reference';
import type { StoredImage } from './image-store';

export const repoTags = (image: StoredImage) => image.names.filter((n) => n.tag).map(familiarString);
export const repoDigests = (image: StoredImage) => image.names.filter((n) => n.digest).map(familiarString);

const unixSeconds = (iso: string | undefined) => (iso ? Math.floor(Date.parse(iso) / 1000) || 0 : 0);

/**
 * RepoDigests are always present: the spec adds them with `digests=1`, and real clients (the
 * docker CLI since 17.x) no longer send it and expect them anyway, as Docker 20.10 gives them.
 */
export function imageSummary(image: StoredImage, size: number, parent: string): ImageSummary {
  const tags = repoTags(image);
  const digests = repoDigests(image);
  const dangling = tags.length === 0 && digests.length === 0;
  const summary: ImageSummary = {
    Containers: -1,
    Created: unixSeconds(image.config.created),
    Id: image.id,
    Labels: image.config.config?.Labels ?? null,
    ParentId: parent,
    RepoDigests: dangling ? ['<none>@<none>'] : digests,
    RepoTags: dangling ? ['<none>:<none>'] : tags,
    SharedSize: -1,
    Size: size,
    VirtualSize: size,
  };
  return summary;
}

export function imageInspect(
  image: StoredImage,
  size: number,
  parent: string,
  storageDriver: string,
): ImageInspect {
  const config = image.config;
  return {
    Id: image.id,
    RepoTags: repoTags(image),
    RepoDigests: repoDigests(image),
    Parent: parent,
    Comment: config.history?.at(-1)?.comment ?? '',
    Created: config.created ?? new Date(0).toISOString(),
    Container: config.container ?? '',
    ContainerConfig: withDefaults(containerConfigDefaults, config.container_config ?? {}),
    DockerVersion: config.docker_version ?? '',
    Author: config.author ?? '',
    Config: withDefaults(containerConfigDefaults, config.config ?? {}),
    Architecture: config.architecture,
    ...(config.variant ? { Variant: config.variant } : {}),
    Os: config.os,
    ...(config['os.version'] ? { OsVersion: config['os.version'] } : {}),
    Size: size,
    VirtualSize: size,
    GraphDriver: { Name: storageDriver, Data: null },
    RootFS: { Type: 'layers', Layers: [...config.rootfs.diff_ids] },
    Metadata: { LastTagTime: image.lastTagged?.toISOString() ?? '0001-01-01T00:00:00Z' },
  };
}

/**
 * Newest first; layer sizes in stack order. The entry topping each local image of the chain (the
 * image itself, then its parent...) carries that image's ID and tags, as dockerd shows them.
 */
export function imageHistory(
  image: StoredImage,
  layerSizes: number[],
  chain: StoredImage[] = [],
): ImageHistoryItem[] {
  const history = image.config.history?.length
    ? image.config.history
    : image.config.rootfs.diff_ids.map(() => ({}) as NonNullable<typeof image.config.history>[number]);
  let layer = 0;
  const items = history.map((h) => ({
    Id: '<missing>',
    Created: unixSeconds(h.created),
    CreatedBy: h.created_by ?? '',
    Tags: null as string[] | null,
    Size: h.empty_layer ? 0 : (layerSizes[layer++] ?? 0),
    Comment: h.comment ?? '',
  }));
  for (const local of [image, ...chain]) {
    const top = items[(local.config.history?.length || local.config.rootfs.diff_ids.length) - 1];
    if (!top) continue;
    top.Id = local.id;
    const tags = repoTags(local);
    top.Tags = tags.length ? tags : null;
  }
  items.reverse();
  return items;
}
