// Disk usage (GET /system/df) and the prunes that free it. Everything the screen shows comes from
// one df answer, so a confirmation names exactly what that answer says will go.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { engine } from '../../api/engine-client';
import type { ImageSummary, SystemDfResponse } from '../../api/engine-types';
import { errorText } from '../../api/gateway';
import { withoutHelpers } from '../../api/helper-containers';
import { bytes } from '../../app/ui/format';
import { toast } from '../../app/ui/toasts';
import { useEngineUp } from '../../app/state/use-desktop-state';
import type { EngineProduct } from '../../app/state/engine-product';

export type Kind = 'containers' | 'images' | 'volumes' | 'build cache';

export interface Section {
  kind: Kind;
  total: number;
  active: number;
  size: number;
  reclaimable: number;
  /** What a prune of this kind removes, by name. */
  removable: string[];
  /** Images only: each unused image's names (its ID when it has none), to remove one by one. */
  refs?: string[];
}

const shortId = (id: string) => id.replace(/^sha256:/, '').slice(0, 12);

/**
 * The four kinds as the df answer has them. With `everything`, images and volumes count as unused
 * when only stopped containers use them: "Clean up everything" removes those containers first.
 */
export function sections(df: SystemDfResponse, everything = false): Section[] {
  // A volume browser's container is the app's, not the user's: a prune removes it, unnamed.
  const containers = withoutHelpers(df.Containers);
  const stopped = containers.filter((c) => c.State !== 'running' && c.State !== 'paused');
  const staying = everything ? containers.filter((c) => !stopped.includes(c)) : containers;
  const usedImages = new Set(staying.map((c) => c.ImageID));
  // Podman answers null for a container without mounts.
  const usedVolumes = new Set(
    staying.flatMap((c) => (c.Mounts ?? []).flatMap((m) => (m.Name ? [m.Name] : []))),
  );
  const unusedImages = df.Images.filter((i) => !usedImages.has(i.Id));
  const unusedVolumes = df.Volumes.filter((v) => !usedVolumes.has(v.Name));
  const sum = (values: number[]) => values.reduce((a, b) => a + Math.max(0, b), 0);
  return [
    {
      kind: 'containers',
      total: containers.length,
      active: containers.length - stopped.length,
      size: sum(containers.map((c) => c.SizeRw ?? 0)),
      reclaimable: sum(stopped.map((c) => c.SizeRw ?? 0)),
      removable: stopped.map((c) => (c.Names[0] ?? shortId(c.Id)).replace(/^\//, '')),
    },
    {
      kind: 'images',
      total: df.Images.length,
      active: df.Images.length - unusedImages.length,
      // Podman reports no layers total (0): the images' sizes are the closest it gives.
      size: df.LayersSize || sum(df.Images.map((i) => i.Size)),
      // Layers shared with images that stay are not freed.
      reclaimable: sum(unusedImages.map((i) => i.Size - Math.max(0, i.SharedSize))),
      // By ID, with every name: a prune removes the image, and with it each of its tags.
      removable: unusedImages.map((i) =>
        namesOf(i).length ? `${shortId(i.Id)} (${namesOf(i).join(', ')})` : shortId(i.Id),
      ),
      refs: unusedImages.flatMap((i) => (namesOf(i).length ? namesOf(i) : [i.Id])),
    },
    {
      kind: 'volumes',
      total: df.Volumes.length,
      active: df.Volumes.length - unusedVolumes.length,
      size: sum(df.Volumes.map((v) => v.UsageData?.Size ?? 0)),
      reclaimable: sum(unusedVolumes.map((v) => v.UsageData?.Size ?? 0)),
      removable: unusedVolumes.map((v) => v.Name),
    },
    {
      kind: 'build cache',
      total: df.BuildCache.length,
      active: 0,
      size: df.BuilderSize,
      reclaimable: df.BuilderSize,
      removable: ['the build cache (intermediate images no tagged image needs)'],
    },
  ];
}

const namesOf = (i: ImageSummary) => (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');

/**
 * Podman's df names an image by its tag alone ("latest"): the names then come from the image
 * list, matched by ID (which Podman's df gives without its "sha256:").
 */
async function withImageNames(df: SystemDfResponse): Promise<SystemDfResponse> {
  if (!df.Images.some((i) => i.RepoTags?.some((t) => !t.includes(':')))) return df;
  const byId = new Map((await engine.images()).map((i) => [i.Id.replace(/^sha256:/, ''), i.RepoTags]));
  return {
    ...df,
    Images: df.Images.map((i) => ({ ...i, RepoTags: byId.get(i.Id.replace(/^sha256:/, '')) ?? [] })),
  };
}

export function useDiskUsage() {
  const up = useEngineUp();
  return useQuery({
    queryKey: ['disk-usage', {}],
    queryFn: async () => withImageNames(await engine.diskUsage()),
    enabled: up,
  });
}

/** What the engine lacks of what this screen uses: a kind it cannot prune, why, and a note on sizes. */
export function diskUsageGaps(product: EngineProduct): { unprunable: Kind[]; notes: string[] } {
  if (!product.podman) return { unprunable: [], notes: [] };
  return {
    unprunable: ['build cache'],
    notes: [
      `${product.label} has no build cache API (POST /build/prune): there is no build cache to clear here.`,
      `${product.label} reports no total of image layers: the images' size is the sum of their sizes, shared layers counted in each.`,
    ],
  };
}

const prunes: Record<Kind, () => Promise<unknown>> = {
  containers: engine.pruneContainers,
  // Images after containers: a stopped container's image becomes unused once it is gone.
  images: engine.pruneUnusedImages,
  volumes: engine.pruneVolumes,
  'build cache': engine.pruneBuildCache,
};

/**
 * Podman refuses the prune of every unused image (its compat API always adds dangling=true, and
 * answers 500 to dangling=false): the images the confirmation named are removed one by one.
 */
async function removeImagesOneByOne(s: Section): Promise<void> {
  for (const ref of s.refs ?? []) await engine.removeImage(ref, false);
}

/** Everything df counts, in bytes. */
function dfTotal(df: SystemDfResponse): number {
  return sections(df).reduce((n, s) => n + s.size, 0);
}

/**
 * Prunes the kinds in turn (containers first, so their images and volumes are free after). What
 * was reclaimed is measured, df before against df after: the SpaceReclaimed of one prune misses
 * what another kind's prune frees (an image's layers once its stopped container is pruned).
 */
export function usePrune(product: EngineProduct) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (pending: Section[]) => {
      const kinds = pending.map((s) => s.kind);
      const before = dfTotal(await engine.diskUsage());
      for (const kind of (Object.keys(prunes) as Kind[]).filter((k) => kinds.includes(k))) {
        const section = pending.find((s) => s.kind === kind)!;
        const prune =
          kind === 'images' && product.podman ? () => removeImagesOneByOne(section) : prunes[kind];
        await prune();
      }
      const reclaimed = Math.max(0, before - dfTotal(await engine.diskUsage()));
      return { kinds, reclaimed };
    },
    onSuccess: ({ kinds, reclaimed }) =>
      toast('done', `Removed ${kinds.join(', ')}: ${bytes(reclaimed)} reclaimed`),
    onError: (err) => toast('failed', `Clean-up failed: ${errorText(err)}`),
    onSettled: () => qc.invalidateQueries(),
  });
}
