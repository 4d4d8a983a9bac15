// Unpacking layers into snapshots of the storage driver in use, named by chain ID, as containerd's
// unpacker does: each layer is applied onto an active snapshot of its parent chain (by svcd's
// applier where it can, layer-apply.ts, else by containerd's diff service), checked against its
// diff ID, then committed. Chains already committed are shared, not
// unpacked again.
import { randomBytes } from 'node:crypto';
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import { sha256 } from '../../lib/digest';
import type { ContainerdClient } from '../../runtime/containerd/client';
import {
  adoptLayer,
  applyLayer,
  canApply,
  layerTarget,
  stageLayer,
  type StagedLayer,
} from '../../runtime/containerd/layer-apply';
import type { Mount } from '../../runtime/containerd/types';
import type { Descriptor } from '../../api/manifest-types';

/** The committed snapshot an image without layers runs on. */
export const EMPTY_CHAIN = 'svc-empty-rootfs';

/** Chain IDs of a layer stack (OCI image spec): chain(n) = sha256(chain(n-1) + " " + diff(n)). */
export function chainIds(diffIds: readonly string[]): string[] {
  const out: string[] = [];
  for (const diffId of diffIds) {
    const parent = out[out.length - 1];
    out.push(parent === undefined ? diffId : sha256(`${parent} ${diffId}`));
  }
  return out;
}

/** The snapshot a container of an image with these layers starts from. */
export function topChainId(diffIds: readonly string[]): string {
  return chainIds(diffIds).at(-1) ?? EMPTY_CHAIN;
}

export interface UnpackProgress {
  (layer: Descriptor, status: 'Extracting' | 'Pull complete' | 'Already exists'): void;
}

async function exists(client: ContainerdClient, key: string): Promise<boolean> {
  try {
    await client.snapshots.stat(key);
    return true;
  } catch (err) {
    if (err instanceof NotFoundError) return false;
    throw err;
  }
}

/** Commits `name` from an active snapshot `prepare` fills; losing a race to another unpacker is fine. */
async function commitSnapshot(
  client: ContainerdClient,
  name: string,
  parent: string,
  fill: (mounts: Awaited<ReturnType<ContainerdClient['snapshots']['prepare']>>) => Promise<void>,
): Promise<void> {
  const key = `extract-${Date.now()}-${randomBytes(4).toString('hex')} ${name}`;
  const mounts = await client.snapshots.prepare(key, parent);
  try {
    await fill(mounts);
    await client.snapshots.commit(name, key);
  } catch (err) {
    await client.snapshots.remove(key).catch(() => undefined);
    if (err instanceof ConflictError && (await exists(client, name))) return;
    throw err;
  }
}

/**
 * Unpacks `layers` whose uncompressed digests are `diffIds`; returns the top chain ID. Each layer
 * must be in the content store once `stored(i)` resolves (all already are when it is absent), so a
 * pull can unpack a layer while later ones download. The client should carry a lease until an
 * image references the result.
 */
export async function unpackLayers(
  client: ContainerdClient,
  layers: readonly Descriptor[],
  diffIds: readonly string[],
  onProgress?: UnpackProgress,
  signal?: AbortSignal,
  stored?: (index: number) => Promise<void>,
): Promise<string> {
  if (layers.length !== diffIds.length) {
    throw new InvalidParameterError(`image has ${layers.length} layers but ${diffIds.length} diff IDs`);
  }
  if (layers.length === 0) {
    if (!(await exists(client, EMPTY_CHAIN))) await commitSnapshot(client, EMPTY_CHAIN, '', async () => {});
    return EMPTY_CHAIN;
  }
  const chains = chainIds(diffIds);
  // A failed unpack stops the layers still staging; their errors surface where each is awaited.
  const failed = new AbortController();
  const stageSignal = signal ? AbortSignal.any([signal, failed.signal]) : failed.signal;
  const staged = layers.map((layer, i) =>
    stage(client, layer, i, chains[i], onProgress, stageSignal, stored),
  );
  for (const s of staged) s.catch(() => {});
  try {
    for (const [i, layer] of layers.entries()) {
      signal?.throwIfAborted();
      if (await exists(client, chains[i])) continue;
      await stored?.(i);
      signal?.throwIfAborted();
      const ready = await staged[i];
      if (!ready) onProgress?.(layer, 'Extracting');
      await commitSnapshot(client, chains[i], chains[i - 1] ?? '', async (mounts) => {
        const applied = await apply(client, layer, mounts, ready, signal);
        if (applied !== diffIds[i]) {
          throw new InvalidParameterError(
            `layer ${layer.digest}: unpacked content has digest ${applied}, the image config expects ${diffIds[i]}`,
          );
        }
      });
      onProgress?.(layer, 'Pull complete');
    }
  } catch (err) {
    failed.abort(err);
    throw err;
  } finally {
    await Promise.all(staged.map(async (s) => (await s.catch(() => undefined))?.discard()));
  }
  return chains[chains.length - 1];
}

/**
 * On overlayfs, each layer is applied as soon as it is stored, beside the others, into a staging
 * directory its snapshot adopts once the layers below are committed. Undefined where svcd does not
 * stage (another snapshotter, a remote containerd, a layer already unpacked).
 */
async function stage(
  client: ContainerdClient,
  layer: Descriptor,
  index: number,
  chain: string,
  onProgress: UnpackProgress | undefined,
  signal: AbortSignal | undefined,
  stored: ((index: number) => Promise<void>) | undefined,
): Promise<StagedLayer | undefined> {
  const dir = client.layerStaging;
  if (!dir || client.snapshotter !== 'overlayfs' || !canApply(layer.mediaType)) return undefined;
  if (await exists(client, chain)) return undefined;
  await stored?.(index);
  onProgress?.(layer, 'Extracting');
  return stageLayer(await client.content.open(layer.digest), dir, index > 0, signal);
}

/** Applies `layer` onto the active snapshot `mounts`; returns the diff ID of what was applied. */
async function apply(
  client: ContainerdClient,
  layer: Descriptor,
  mounts: Mount[],
  staged: StagedLayer | undefined,
  signal: AbortSignal | undefined,
): Promise<string> {
  if (staged && (await adoptLayer(staged, mounts, layer.mediaType))) return staged.diffId;
  const target = layerTarget(mounts, layer.mediaType);
  if (target) return applyLayer(await client.content.open(layer.digest), target, signal);
  return (await client.diff.apply(layer, mounts)).digest;
}
