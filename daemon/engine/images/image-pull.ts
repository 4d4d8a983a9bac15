// POST /images/create?fromImage=…: pull through the registry client into containerd's content
// store (under a lease), unpack, label for GC, then name the image by tag and by digest.
import type { ImagePullRequest } from '../../api/image-types';
import {
  familiarName,
  familiarString,
  parseImageAndTag,
  referenceString,
  type Reference,
} from '../shared/reference';
import { decodeAuthConfig } from './distribution/auth-config';
import { pullImage } from './distribution/pull';
import { RegistryClient } from './distribution/registry-client';
import { shortId } from './distribution/types';
import type { Descriptor } from '../../api/manifest-types';
import { ContentStore } from './content-store';
import type { ImageContent, ImageStore } from './image-store';
import { withLease } from './lease';
import { progressMessage } from './progress';
import { unpackLayers } from './unpacker';
import type { ContainerdClient } from '../../runtime/containerd/client';

export interface PullContext {
  client: ContainerdClient;
  store: ImageStore;
  insecureRegistries: string[];
  userAgent: string;
  onPulled(ref: Reference): void;
}

export async function pull(ctx: PullContext, args: ImagePullRequest): Promise<void> {
  const ref = parseImageAndTag(args.image, args.tag);
  const registry = RegistryClient.forReference(ref, {
    auth: decodeAuthConfig(args.auth),
    insecureRegistries: ctx.insecureRegistries,
    userAgent: ctx.userAgent,
  });
  if (ref.tag || ref.digest) {
    const updated = await pullOne(ctx, registry, ref, args);
    args.emit({
      status: `Status: ${updated ? 'Downloaded newer image' : 'Image is up to date'} for ${familiarString(ref)}`,
    });
    return;
  }
  // No tag: every tag of the repository, as `docker pull --all-tags`.
  let updated = false;
  for (const tag of await registry.listTags(ref.path, args.signal)) {
    updated = (await pullOne(ctx, registry, { ...ref, tag }, args)) || updated;
  }
  args.emit({
    status: `Status: ${updated ? 'Downloaded newer image' : 'Image is up to date'} for ${familiarName(ref)}`,
  });
}

/** Pulls one tag or digest; true when a name now points somewhere new. */
async function pullOne(
  ctx: PullContext,
  registry: RegistryClient,
  ref: Reference,
  args: ImagePullRequest,
): Promise<boolean> {
  args.emit({ status: `Pulling from ${familiarName(ref)}`, id: ref.tag ?? ref.digest });
  const updated = await withLease(ctx.client, async (leased) => {
    const sink = new ContentStore(leased);
    const pulled = await pullImage({
      client: registry,
      reference: ref,
      platform: args.platform,
      sink,
      onProgress: (event) => args.emit(progressMessage(event)),
      signal: args.signal,
      unpack: async (config, layers, stored) => {
        await unpackLayers(
          leased,
          layers,
          config.rootfs?.diff_ids ?? [],
          (layer, status) => args.emit({ status, id: shortId(layer.digest), progressDetail: {} }),
          args.signal,
          stored,
        );
      },
    });
    const blobs: Descriptor[] = [pulled.target, pulled.manifest, pulled.config, ...pulled.layers];
    await Promise.all(
      [...new Set(blobs.map((b) => b.digest))].map((b) => sink.addSource(b, ref.domain, ref.path)),
    );
    const image: ImageContent = {
      id: pulled.config.digest,
      target: pulled.target,
      manifest: pulled.manifest,
      layers: pulled.layers,
      config: await ctx.store.config(pulled.config.digest),
    };
    await ctx.store.protect(image, leased);
    const byTag: Reference[] =
      ref.tag && !ref.digest ? [{ domain: ref.domain, path: ref.path, tag: ref.tag }] : [];
    const byDigest: Reference = { domain: ref.domain, path: ref.path, digest: pulled.digest };
    let changed = false;
    for (const name of [...byTag, byDigest]) {
      const before = await leased.images.get(referenceString(name)).catch(() => undefined);
      await ctx.store.setName(referenceString(name), image, leased);
      changed ||= before?.target.digest !== image.target.digest;
    }
    args.emit({ status: `Digest: ${pulled.digest}` });
    return changed;
  });
  ctx.onPulled(ref);
  return updated;
}
