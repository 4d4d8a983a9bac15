// Images as containerd holds them: one image record per name (`docker.io/library/busybox:latest`,
// `…@sha256:…`) pointing at a manifest or index, and a `svc-dangling@<id>` record for an image
// that has lost its last name but must stay. The image ID is the config digest, as Docker's is.
// GC labels chain target → config/layers → snapshot, so containerd keeps exactly what is named.
import { ConflictError, InvalidParameterError, NotFoundError } from '../../api/errors';
import type { OciImageConfig } from '../../api/image-types';
import { isImageIndex } from '../../lib/media-types';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { Image } from '../../runtime/containerd/images-service';
import { ContentStore } from './content-store';
import { parseManifest } from './distribution/manifest';
import { parsePlatform, selectManifest } from './distribution/platform';
import type { Descriptor, ImageManifest } from '../../api/manifest-types';
import { parseReference, referenceString, withDefaultTag, type Reference } from '../shared/reference';
import { chainIds, topChainId } from './unpacker';

const idLabel = 'io.svc.image.id';
const manifestLabel = 'io.svc.image.manifest';
const danglingPrefix = 'svc-dangling@';
// On the config blob, so it follows the image ID whatever its names; not a GC reference, as
// dockerd keeps no parent alive either.
const parentLabel = 'io.svc.image.parent';

/** What an image is made of, resolved from its target. */
export interface ImageContent {
  id: string;
  target: Descriptor;
  /** The single-platform manifest (the target itself unless the target is an index). */
  manifest: Descriptor;
  layers: Descriptor[];
  config: OciImageConfig;
}

export interface StoredImage extends ImageContent {
  /** Canonical names (`docker.io/library/busybox:latest`, `…@sha256:…`); none when dangling. */
  names: Reference[];
  records: Image[];
  /** When a name was last given to it (Metadata.LastTagTime). */
  lastTagged: Date | undefined;
  /** The earliest record: Docker lists images by when they came. */
  createdAt: Date | undefined;
}

export const isDanglingName = (name: string) => name.startsWith(danglingPrefix);

export class ImageStore {
  private readonly configs = new Map<string, OciImageConfig>();
  private readonly sizes = new Map<string, number>();
  /** Parent by image ID; a label set once, at creation, so it never goes stale. */
  private readonly parents = new Map<string, string>();
  private readonly resolved = new Map<string, ImageContent>();
  /**
   * containerd's image records, as last listed. Only this store writes them, and the end of each
   * write drops the list, also one still being made while the write ran.
   */
  private records?: Promise<Image[]>;

  constructor(private readonly client: ContainerdClient) {}

  content(client = this.client): ContentStore {
    return new ContentStore(client);
  }

  private async readJson<T>(digest: string): Promise<T> {
    return JSON.parse((await this.client.content.readAll(digest)).toString('utf8')) as T;
  }

  async config(digest: string): Promise<OciImageConfig> {
    let config = this.configs.get(digest);
    if (!config) {
      config = await this.readJson<OciImageConfig>(digest);
      if (!config.rootfs || !Array.isArray(config.rootfs.diff_ids)) {
        throw new InvalidParameterError(`image config ${digest} has no rootfs.diff_ids`);
      }
      this.configs.set(digest, config);
    }
    return config;
  }

  /** Resolves a manifest or index to the platform manifest, its layers and config. */
  async resolve(target: Descriptor, platform?: string, client = this.client): Promise<ImageContent> {
    let manifest = target;
    let bytes = await client.content.readAll(target.digest);
    if (isImageIndex(target.mediaType)) {
      const parsed = parseManifest(bytes, target.mediaType);
      if (parsed.kind !== 'index') throw new InvalidParameterError(`${target.digest} is not an index`);
      const present: Descriptor[] = [];
      for (const m of parsed.index.manifests) if (await this.content(client).has(m.digest)) present.push(m);
      manifest = selectManifest(present, parsePlatform(platform));
      bytes = await client.content.readAll(manifest.digest);
    }
    const parsed = parseManifest(bytes, manifest.mediaType);
    if (parsed.kind !== 'manifest')
      throw new InvalidParameterError(`${manifest.digest} is not an image manifest`);
    const { config, layers } = parsed.manifest as ImageManifest;
    return { id: config.digest, target, manifest, layers, config: await this.config(config.digest) };
  }

  /**
   * Sets the GC labels containerd follows from the target down to the unpacked snapshot, so an
   * image record keeps everything the image needs. Call under a lease, before naming the image.
   */
  async protect(image: ImageContent, client: ContainerdClient): Promise<void> {
    const content = this.content(client);
    // Per snapshotter: an image unpacked under another storage driver keeps both snapshots.
    const snapshotGcLabel = `containerd.io/gc.ref.snapshot.${client.snapshotter}`;
    await content.mergeLabels(image.id, { [snapshotGcLabel]: topChainId(image.config.rootfs.diff_ids) });
    const refs: Record<string, string> = { 'containerd.io/gc.ref.content.config': image.id };
    image.layers.forEach((l, i) => (refs[`containerd.io/gc.ref.content.l.${i}`] = l.digest));
    await content.mergeLabels(image.manifest.digest, refs);
    if (image.target.digest !== image.manifest.digest) {
      const parsed = parseManifest(await client.content.readAll(image.target.digest), image.target.mediaType);
      const children: Record<string, string> = {};
      if (parsed.kind === 'index') {
        for (const [i, m] of parsed.index.manifests.entries()) {
          if (await content.has(m.digest)) children[`containerd.io/gc.ref.content.m.${i}`] = m.digest;
        }
      }
      await content.mergeLabels(image.target.digest, children);
    }
  }

  async setParent(id: string, parent: string, client: ContainerdClient): Promise<void> {
    await this.content(client).mergeLabels(id, { [parentLabel]: parent });
    this.parents.set(id, parent);
  }

  /** The image this one was made from, or '' (pulled, loaded and imported images have none). */
  async parentOf(id: string): Promise<string> {
    let parent = this.parents.get(id);
    if (parent === undefined) {
      parent =
        (
          await this.content()
            .labels(id)
            .catch(() => ({}) as Record<string, string>)
        )[parentLabel] ?? '';
      this.parents.set(id, parent);
    }
    return parent;
  }

  private listRecords(): Promise<Image[]> {
    if (this.records) return this.records;
    const listing = this.client.images.list();
    this.records = listing;
    listing.catch(() => {
      if (this.records === listing) this.records = undefined;
    });
    return listing;
  }

  private async write<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } finally {
      this.records = undefined;
    }
  }

  /** Every image, by ID, with its names. */
  async list(): Promise<StoredImage[]> {
    const byId = new Map<string, StoredImage>();
    for (const record of await this.listRecords()) {
      let id = record.labels[idLabel];
      let content: ImageContent | undefined;
      if (!id) {
        // A record svcd did not write (or lost its labels): resolve it the long way.
        content = await this.resolve(record.target).catch(() => undefined);
        if (!content) continue;
        id = content.id;
      }
      let image = byId.get(id);
      if (!image) {
        content ??= await this.resolveRecord(record).catch(() => undefined);
        if (!content) continue;
        image = { ...content, names: [], records: [], lastTagged: undefined, createdAt: undefined };
        byId.set(id, image);
      }
      image.records.push(record);
      if (!image.createdAt || (record.createdAt && record.createdAt < image.createdAt)) {
        image.createdAt = record.createdAt;
      }
      if (!isDanglingName(record.name)) {
        image.names.push(parseReference(record.name));
        if (!image.lastTagged || (record.updatedAt && record.updatedAt > image.lastTagged)) {
          image.lastTagged = record.updatedAt;
        }
      }
    }
    return [...byId.values()];
  }

  /** Content is immutable: what a record's target and manifest label resolve to never changes. */
  private async resolveRecord(record: Image): Promise<ImageContent> {
    const key = `${record.target.digest} ${record.labels[manifestLabel] ?? ''}`;
    const known = this.resolved.get(key);
    if (known) return known;
    const content = await this.resolveRecordContent(record);
    // An index without the label resolves by which of its manifests are present, which can change.
    if (record.labels[manifestLabel] || !isImageIndex(record.target.mediaType))
      this.resolved.set(key, content);
    return content;
  }

  private async resolveRecordContent(record: Image): Promise<ImageContent> {
    const manifest = record.labels[manifestLabel];
    if (!manifest || manifest === record.target.digest) return this.resolve(record.target);
    const content = await this.resolve(record.target);
    if (content.manifest.digest === manifest) return content;
    const bytes = await this.client.content.readAll(manifest);
    const parsed = parseManifest(bytes);
    if (parsed.kind !== 'manifest') return content;
    return {
      ...content,
      manifest: { mediaType: parsed.mediaType, digest: manifest, size: bytes.length },
      layers: parsed.manifest.layers,
      config: await this.config(parsed.manifest.config.digest),
      id: parsed.manifest.config.digest,
    };
  }

  /**
   * Finds an image as Docker does: a full ID, a name (tag defaults to latest) or digest
   * reference, then an unambiguous ID prefix.
   */
  async find(refOrId: string): Promise<StoredImage | undefined> {
    const images = await this.list();
    const full = /^(sha256:)?([a-f0-9]{64})$/.exec(refOrId);
    if (full) return images.find((i) => i.id === `sha256:${full[2]}`);
    let ref: Reference | undefined;
    try {
      ref = withDefaultTag(parseReference(refOrId));
    } catch {}
    if (ref) {
      const name = referenceString(ref);
      const named = images.find((i) => i.records.some((r) => r.name === name));
      if (named) return named;
      if (ref.digest) {
        const byTarget = images.find(
          (i) =>
            i.names.some((n) => n.domain === ref.domain && n.path === ref.path) &&
            i.target.digest === ref.digest,
        );
        if (byTarget) return byTarget;
      }
    }
    const prefix = /^(?:sha256:)?([a-f0-9]{1,63})$/.exec(refOrId)?.[1];
    if (!prefix) return undefined;
    const matches = images.filter((i) => i.id.startsWith(`sha256:${prefix}`));
    if (matches.length > 1) throw new NotFoundError(`No such image: ${refOrId} (ambiguous ID prefix)`);
    return matches[0];
  }

  async get(refOrId: string): Promise<StoredImage> {
    const image = await this.find(refOrId);
    if (!image) throw new NotFoundError(`No such image: ${refOrId}`);
    return image;
  }

  /**
   * Points `name` (canonical) at the image. An image the name is taken from keeps existing,
   * dangling, when that was its last name. Returns the ID the name pointed at before, if other.
   */
  setName(name: string, image: ImageContent, client = this.client): Promise<string | undefined> {
    return this.write(() => this.writeName(name, image, client));
  }

  private async writeName(
    name: string,
    image: ImageContent,
    client: ContainerdClient,
  ): Promise<string | undefined> {
    const labels = { [idLabel]: image.id, [manifestLabel]: image.manifest.digest };
    const existing = await client.images.get(name).catch((err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
    let previous: string | undefined;
    if (existing) {
      previous = existing.labels[idLabel] ?? (await this.resolve(existing.target)).id;
      if (previous === image.id && existing.target.digest === image.target.digest) return undefined;
      if (previous !== image.id) {
        const others = (await client.images.list()).filter(
          (r) => r.name !== name && r.labels[idLabel] === previous,
        );
        if (others.length === 0) {
          await client.images.create({
            name: danglingPrefix + previous,
            target: existing.target,
            labels: existing.labels,
          });
        }
      }
      await client.images.update(name, { target: image.target, labels });
    } else {
      try {
        await client.images.create({ name, target: image.target, labels });
      } catch (err) {
        // Another operation named it meanwhile (two pulls of one image): update it instead.
        if (err instanceof ConflictError) return this.writeName(name, image, client);
        throw err;
      }
    }
    await client.images.delete(danglingPrefix + image.id).catch(() => undefined);
    return previous !== image.id ? previous : undefined;
  }

  /** Records an image with no name (an import without repo, a load by ID), unless it has one. */
  setDangling(image: ImageContent, client = this.client): Promise<void> {
    return this.write(async () => {
      const records = await client.images.list();
      if (records.some((r) => r.labels[idLabel] === image.id)) return;
      await this.createDangling(image, client);
    });
  }

  /** Adds the dangling record first, so removing the names afterwards keeps the image. */
  createDangling(image: ImageContent, client = this.client): Promise<void> {
    return this.write(() =>
      client.images
        .create({
          name: danglingPrefix + image.id,
          target: image.target,
          labels: { [idLabel]: image.id, [manifestLabel]: image.manifest.digest },
        })
        .then(
          () => undefined,
          (err: unknown) => {
            if (!(err instanceof ConflictError)) throw err;
          },
        ),
    );
  }

  /** Removes one name; the image goes away with its last record (containerd collects it). */
  async removeName(name: string): Promise<void> {
    await this.write(() => this.client.images.delete(name));
  }

  /** Deletes every record of the image and waits for containerd's garbage collection. */
  async deleteImage(image: StoredImage): Promise<string[]> {
    const chains = chainIds(image.config.rootfs.diff_ids);
    for (const [key, content] of this.resolved) if (content.id === image.id) this.resolved.delete(key);
    await this.write(async () => {
      for (const [i, record] of image.records.entries()) {
        await this.client.images.delete(record.name, i === image.records.length - 1);
      }
    });
    const gone: string[] = [];
    for (const chain of chains.reverse()) {
      const still = await this.client.snapshots.stat(chain).then(
        () => true,
        () => false,
      );
      if (!still) gone.push(chain);
    }
    return gone;
  }

  /**
   * Disk usage of the image's layers (snapshots), each measured once and remembered. The native
   * driver's snapshots are full copies: a layer counts what its copy adds to the one below.
   */
  async layerSizes(image: ImageContent): Promise<{ chain: string; size: number }[]> {
    const out: { chain: string; size: number }[] = [];
    const copies = this.client.snapshotter === 'native';
    let below = 0;
    for (const chain of chainIds(image.config.rootfs.diff_ids)) {
      let used = this.sizes.get(chain);
      if (used === undefined) {
        // Not unpacked (yet, with this driver): 0 until it is, then measured.
        const usage = await this.client.snapshots.usage(chain).catch(() => undefined);
        used = usage?.size ?? 0;
        if (usage) this.sizes.set(chain, used);
      }
      out.push({ chain, size: copies ? Math.max(0, used - below) : used });
      below = used;
    }
    return out;
  }

  async size(image: ImageContent): Promise<number> {
    return (await this.layerSizes(image)).reduce((sum, l) => sum + l.size, 0);
  }
}
