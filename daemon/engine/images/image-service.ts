// Docker's image semantics over containerd: what the image router, the containers engine and
// /info + /system/df ask of images. No HTTP here; streams come in as Readables and progress goes
// out through an Emit callback.
import type { Readable } from 'node:stream';
import { ConflictError, InvalidParameterError } from '../../api/errors';
import type {
  AuthResponse,
  DistributionInspect,
  Emit,
  ImageDeleteItem,
  ImageHistoryItem,
  ImageImportRequest,
  ImageInspect,
  ImagePruneResponse,
  ImagePullRequest,
  ImagePushRequest,
  ImageSearchRequest,
  ImageSearchResult,
  ImageSummary,
  OciImageConfig,
} from '../../api/image-types';
import type { ContainerdClient } from '../../runtime/containerd/client';
import type { EventsService } from '../events/events-service';
import type { Filters } from '../../api/filters';
import { imagePredicate, isDangling } from './image-filters';
import { inspectDistribution, searchRegistry } from './registry-lookup';
import { importImage } from './image-import';
import { ImageStore, type StoredImage } from './image-store';
import { imageHistory, imageInspect, imageSummary } from './image-views';
import { withLease } from './lease';
import { load, save, type ArchiveContext } from './image-archive';
import { pull } from './image-pull';
import { login, push } from './image-push';
import {
  familiarName,
  familiarString,
  parseReference,
  referenceString,
  withDefaultTag,
  type Reference,
} from '../shared/reference';
import { topChainId, unpackLayers } from './unpacker';
import type { ContainerUsage } from '../shared/container-usage';

export interface ImageServiceDeps {
  client: ContainerdClient;
  events: EventsService;
  /** Scratch space for spooled layers (under the data root). */
  tempDir: string;
  insecureRegistries: string[];
  /** Sent to registries, as Docker sends its own. */
  userAgent: string;
  /**
   * Which containers use an image (it is not removed or pruned while one does), and the layers
   * they keep of one none uses any more, let go when it is deleted.
   */
  containers: Pick<ContainerUsage, 'imageUsers' | 'releaseImageLayers'>;
}

export interface ResolvedImage {
  id: string;
  config: OciImageConfig;
  /** The committed snapshot holding the image's root filesystem. */
  chainId: string;
  /** Makes sure that snapshot exists; needed only where nothing stands on it yet. */
  unpack: () => Promise<unknown>;
  /** The name it was asked by, canonical (`docker.io/library/busybox:latest`), or the ID. */
  name: string;
}

const shortId = (id: string) => id.slice(id.indexOf(':') + 1, id.indexOf(':') + 13);

export class ImageService {
  readonly store: ImageStore;

  constructor(readonly deps: ImageServiceDeps) {
    this.store = new ImageStore(deps.client);
  }

  protected publish(action: string, id: string, name: string, extra: Record<string, string> = {}): void {
    this.deps.events.publish('image', action, { id, attributes: { name, ...extra } });
  }

  /**
   * The image a container is created from, its snapshot unpacked (again, if containerd lost it).
   * Throws NotFoundError (`No such image: …`).
   */
  async resolveForContainer(ref: string): Promise<ResolvedImage> {
    const image = await this.store.get(ref);
    const diffIds = image.config.rootfs.diff_ids;
    const named = image.names.find((n) => referenceString(n) === this.canonical(ref));
    return {
      id: image.id,
      config: image.config,
      chainId: topChainId(diffIds),
      // Protected once unpacked: under another storage driver than the image's, the new
      // snapshots need their own GC label to outlive the container.
      unpack: () =>
        withLease(this.deps.client, async (leased) => {
          await unpackLayers(leased, image.layers, diffIds);
          await this.store.protect(image, leased);
        }),
      name: named ? referenceString(named) : image.id,
    };
  }

  private canonical(ref: string): string | undefined {
    try {
      return referenceString(withDefaultTag(parseReference(ref)));
    } catch {
      return undefined;
    }
  }

  /** The image an ID, short ID, name or digest reference names, if any. */
  async findImage(refOrId: string): Promise<{ id: string; names: string[] } | undefined> {
    const image = await this.store.find(refOrId);
    return image && { id: image.id, names: image.names.map(familiarString) };
  }

  async importImage(req: ImageImportRequest): Promise<string> {
    let name: string | undefined;
    if (req.repo) {
      const ref = parseReference(req.repo);
      if (ref.digest) throw new InvalidParameterError('cannot import digest reference');
      name = referenceString(withDefaultTag(req.tag ? { ...ref, tag: req.tag } : ref));
      if (req.tag) parseReference(`${req.repo.replace(/:[^/:]*$/, '')}:${req.tag}`);
    }
    const image = await importImage(this.store, this.deps.client, this.deps.tempDir, { ...req, name });
    this.publish('import', image.id, image.id);
    return image.id;
  }

  async pull(args: ImagePullRequest & { auth?: string }): Promise<void> {
    const { client, insecureRegistries, userAgent } = this.deps;
    await pull(
      {
        client,
        store: this.store,
        insecureRegistries,
        userAgent,
        onPulled: (ref) => this.publish('pull', familiarString(ref), familiarName(ref)),
      },
      args,
    );
  }

  /** GET /images/search: the registry the term names (Docker Hub's index when it names none). */
  search(req: ImageSearchRequest): Promise<ImageSearchResult[]> {
    return searchRegistry(req, this.lookupOptions());
  }

  /** GET /distribution/{name}/json: the manifest a reference resolves to, without pulling. */
  distributionInspect(
    name: string,
    auth: string | undefined,
    signal?: AbortSignal,
  ): Promise<DistributionInspect> {
    return inspectDistribution(name, auth, this.lookupOptions(), signal);
  }

  private lookupOptions() {
    return { insecureRegistries: this.deps.insecureRegistries, userAgent: this.deps.userAgent };
  }

  async push(args: ImagePushRequest): Promise<void> {
    const { client, insecureRegistries, userAgent } = this.deps;
    await push(
      {
        client,
        store: this.store,
        insecureRegistries,
        userAgent,
        onPushed: (ref) => this.publish('push', familiarString(ref), familiarName(ref)),
      },
      args,
    );
  }

  auth(config: Record<string, unknown>, signal?: AbortSignal): Promise<AuthResponse> {
    return login(config, this.deps.insecureRegistries, this.deps.userAgent, signal);
  }

  private archiveContext(): ArchiveContext {
    return {
      client: this.deps.client,
      store: this.store,
      tempDir: this.deps.tempDir,
      onSaved: (image) => this.publish('save', image.id, image.id),
      onLoaded: (id) => this.publish('load', id, id),
    };
  }

  save(names: string[], signal?: AbortSignal): Promise<Readable> {
    return save(this.archiveContext(), names, signal);
  }

  load(body: Readable, options: { quiet: boolean; emit: Emit; signal?: AbortSignal }): Promise<void> {
    return load(this.archiveContext(), body, options);
  }

  async list(options: { filters: Filters; all?: boolean }): Promise<ImageSummary[]> {
    const keep = await imagePredicate(
      options.filters,
      ['dangling', 'label', 'before', 'since', 'reference'],
      (r) => this.store.get(r),
    );
    const images = await this.store.list();
    // As dockerd: an untagged image with children is a build's intermediate, listed with `all`.
    const parents = options.all ? new Set<string>() : new Set((await this.parentsOf(images)).values());
    const out: ImageSummary[] = [];
    for (const image of images.filter((i) => keep(i) && !(isDangling(i) && parents.has(i.id)))) {
      out.push(imageSummary(image, await this.store.size(image), await this.store.parentOf(image.id)));
    }
    return out.sort((a, b) => b.Created - a.Created);
  }

  async inspect(ref: string): Promise<ImageInspect> {
    const image = await this.store.get(ref);
    return imageInspect(
      image,
      await this.store.size(image),
      await this.store.parentOf(image.id),
      this.deps.client.snapshotter,
    );
  }

  async history(ref: string): Promise<ImageHistoryItem[]> {
    const image = await this.store.get(ref);
    // The local ancestors, each topping its part of the history.
    const chain: StoredImage[] = [];
    for (let id = await this.store.parentOf(image.id); id; id = await this.store.parentOf(id)) {
      const parent = await this.store.find(id);
      if (!parent) break;
      chain.push(parent);
    }
    return imageHistory(
      image,
      (await this.store.layerSizes(image)).map((l) => l.size),
      chain,
    );
  }

  /** POST /images/{name}/tag: `repo` may carry the tag itself; `latest` by default. */
  async tag(source: string, repo: string | undefined, tag: string | undefined): Promise<void> {
    if (!repo) throw new InvalidParameterError('repository name must have at least one component');
    let ref = parseReference(repo);
    if (ref.digest) throw new InvalidParameterError('refusing to create a tag with a digest reference');
    if (tag) ref = parseReference(`${referenceString({ ...ref, tag: undefined })}:${tag}`);
    ref = withDefaultTag(ref);
    const image = await this.store.get(source);
    await this.store.setName(referenceString(ref), image);
    this.announceTag(image.id, ref);
  }

  /** The tag event of a name given to an image (by a tag, or by a commit's repo and tag). */
  announceTag(id: string, ref: Reference): void {
    this.publish('tag', id, familiarString(ref));
  }

  /** DELETE /images/{name}, with Docker's rules for names, IDs, force and containers. */
  async remove(refOrId: string, options: { force: boolean; noprune: boolean }): Promise<ImageDeleteItem[]> {
    const image = await this.store.get(refOrId);
    const records: ImageDeleteItem[] = [];
    const named = this.namedReference(image, refOrId);
    // As dockerd: removing by ID announces every name, removing by name announces that name
    // alone; the digest references that go with it are listed, not announced.
    const listUntagged = (ref: Reference) => {
      records.push({ Untagged: familiarString(ref) });
      if (!named || ref === named) this.publish('untag', image.id, image.id);
    };
    const untag = async (ref: Reference) => {
      await this.store.removeName(referenceString(ref));
      listUntagged(ref);
    };
    const users = this.deps.containers.imageUsers(image.id);
    let remaining = image.names;
    if (named) {
      // Untagging the last tag of a repository also drops that repository's digest references.
      remaining = image.names.filter((n) => referenceString(n) !== referenceString(named));
      const drop = named.digest
        ? [named]
        : [
            named,
            ...remaining.filter(
              (n) => n.digest && !remaining.some((t) => t.tag && sameRepo(t, n)) && sameRepo(n, named),
            ),
          ];
      remaining = remaining.filter((n) => !drop.includes(n));
      if (remaining.length === 0 && users.length > 0 && !options.force) {
        // Untagging would leave a container's image dangling: Docker asks for force.
        throw new ConflictError(
          `conflict: unable to remove repository reference "${refOrId}" (must force) - container ${users[0].slice(0, 12)} is using its referenced image ${shortId(image.id)}`,
        );
      }
      if (remaining.length > 0 || users.length > 0) {
        // A container still needs the image: it stays, without names.
        if (remaining.length === 0) await this.store.createDangling(image);
        for (const ref of drop) await untag(ref);
        return records;
      }
    } else {
      const repos = new Set(image.names.map(familiarName));
      if (!options.force && repos.size > 1) {
        throw new ConflictError(
          `conflict: unable to delete ${shortId(image.id)} (must be forced) - image is referenced in multiple repositories`,
        );
      }
      if (users.length > 0) {
        if (!options.force) {
          throw new ConflictError(
            `conflict: unable to delete ${shortId(image.id)} (must be forced) - image is being used by stopped container ${users[0].slice(0, 12)}`,
          );
        }
        await this.store.createDangling(image);
        for (const ref of image.names) await untag(ref);
        return records;
      }
    }
    // The last names go with the image itself, in one garbage collection.
    for (const ref of image.names) listUntagged(ref);
    const parent = await this.store.parentOf(image.id);
    const gone = await this.deleteUnusedImage(image);
    records.push({ Deleted: image.id }, ...gone.filter((c) => c !== image.id).map((c) => ({ Deleted: c })));
    this.publish('delete', image.id, image.id);
    // As dockerd: the untagged parents it leaves childless (a build's steps) go with it.
    if (parent && !options.noprune) {
      records.push(...(await this.removeUnused([parent])).deleted.map((id) => ({ Deleted: id })));
    }
    return records;
  }

  /**
   * Deletes an image no container uses, with the layers only it had: the init layer the last
   * container left goes first, so the layers are freed now and their bytes can be counted.
   * Answers the chain IDs of the snapshots that went.
   */
  private async deleteUnusedImage(image: StoredImage): Promise<string[]> {
    await this.deps.containers.releaseImageLayers(topChainId(image.config.rootfs.diff_ids));
    return this.store.deleteImage(image);
  }

  /** The reference `refOrId` names when it is one of the image's names (not its ID). */
  private namedReference(image: StoredImage, refOrId: string): Reference | undefined {
    const canonical = this.canonical(refOrId);
    return image.names.find((n) => referenceString(n) === canonical);
  }

  /** POST /images/prune: dangling images (or all unused with dangling=false) not used by containers. */
  async prune(filters: Filters): Promise<ImagePruneResponse> {
    const danglingOnly = !['false', '0'].includes((filters.get('dangling')?.[0] ?? 'true').toLowerCase());
    const rest: Filters = new Map([...filters].filter(([k]) => k !== 'dangling'));
    const keep = await imagePredicate(rest, ['label', 'until'], (r) => this.store.get(r));
    const deleted: ImageDeleteItem[] = [];
    let reclaimed = 0;
    const images = await this.store.list();
    const parents = await this.parentsOf(images);
    const hasChild = new Set(parents.values());
    const orphaned: string[] = [];
    for (const image of images) {
      if ((danglingOnly && !isDangling(image)) || !keep(image)) continue;
      // An intermediate image goes with the last image built on it, not before.
      if (danglingOnly && hasChild.has(image.id)) continue;
      if (this.deps.containers.imageUsers(image.id).length > 0) continue;
      const sizes = new Map((await this.store.layerSizes(image)).map((l) => [l.chain, l.size]));
      for (const ref of image.names) deleted.push({ Untagged: familiarString(ref) });
      const gone = await this.deleteUnusedImage(image);
      deleted.push({ Deleted: image.id }, ...gone.map((c) => ({ Deleted: c })));
      for (const chain of gone) reclaimed += sizes.get(chain) ?? 0;
      this.publish('delete', image.id, image.id);
      const parent = parents.get(image.id);
      if (parent) orphaned.push(parent);
    }
    const cascade = await this.removeUnused(orphaned);
    deleted.push(...cascade.deleted.map((id) => ({ Deleted: id })));
    reclaimed += cascade.reclaimed;
    this.deps.events.publish('image', 'prune', { id: '', attributes: { reclaimed: String(reclaimed) } });
    return { ImagesDeleted: deleted.length ? deleted : null, SpaceReclaimed: reclaimed };
  }

  /**
   * Deletes those of `ids` that are dangling with no child image and no container, and then
   * their parents that become so: a build cache's intermediate images, once forgotten.
   */
  async removeUnused(ids: string[]): Promise<{ deleted: string[]; reclaimed: number }> {
    const deleted: string[] = [];
    let reclaimed = 0;
    const pending = new Set(ids);
    while (pending.size > 0) {
      const images = await this.store.list();
      const parents = await this.parentsOf(images);
      const hasChild = new Set(parents.values());
      const next = images.find((i) => pending.has(i.id) && isDangling(i) && !hasChild.has(i.id));
      if (!next) break;
      pending.delete(next.id);
      if (this.deps.containers.imageUsers(next.id).length > 0) continue;
      const sizes = new Map((await this.store.layerSizes(next)).map((l) => [l.chain, l.size]));
      const gone = await this.deleteUnusedImage(next);
      for (const chain of gone) reclaimed += sizes.get(chain) ?? 0;
      deleted.push(next.id);
      this.publish('delete', next.id, next.id);
      const parent = parents.get(next.id);
      if (parent) pending.add(parent);
    }
    return { deleted, reclaimed };
  }

  /** Each image's parent, for those that have one. */
  private async parentsOf(images: StoredImage[]): Promise<Map<string, string>> {
    const pairs = await Promise.all(
      images.map(async (i) => [i.id, await this.store.parentOf(i.id)] as const),
    );
    return new Map(pairs.filter(([, parent]) => parent !== ''));
  }

  /** Images for /info and /system/df: sizes, shared sizes, container counts. */
  async diskUsage(): Promise<{ layersSize: number; images: ImageSummary[] }> {
    const images = await this.store.list();
    const perImage = await Promise.all(images.map((i) => this.store.layerSizes(i)));
    const users = new Map<string, number>();
    const layerSizes = new Map<string, number>();
    for (const layers of perImage) {
      for (const l of layers) {
        users.set(l.chain, (users.get(l.chain) ?? 0) + 1);
        layerSizes.set(l.chain, l.size);
      }
    }
    const out: ImageSummary[] = [];
    for (const [i, image] of images.entries()) {
      const summary = imageSummary(
        image,
        perImage[i].reduce((s, l) => s + l.size, 0),
        await this.store.parentOf(image.id),
      );
      out.push({
        ...summary,
        RepoTags: summary.RepoTags ?? [],
        RepoDigests: summary.RepoDigests ?? [],
        SharedSize: perImage[i].filter((l) => (users.get(l.chain) ?? 0) > 1).reduce((s, l) => s + l.size, 0),
        Containers: this.deps.containers.imageUsers(image.id).length,
      });
    }
    return { layersSize: [...layerSizes.values()].reduce((a, b) => a + b, 0), images: out };
  }
}

function sameRepo(a: Reference, b: Reference): boolean {
  return a.domain === b.domain && a.path === b.path;
}
