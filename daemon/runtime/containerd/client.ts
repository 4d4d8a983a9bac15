// The containerd client svcd uses: one gRPC channel, typed services, one namespace.
import { ContainerdContainersService } from './containers-service';
import { ContentService } from './content-service';
import { DiffService } from './diff-service';
import type { LocalContentPaths } from './local-content';
import { ContainerdEventsService } from './events-service';
import { ImagesService } from './images-service';
import { LeasesService } from './leases-service';
import { NamespacesService } from './namespaces-service';
import { Connection, Rpc } from './rpc';
import { defaultSnapshotter, SnapshotsService } from './snapshots-service';
import { TasksService } from './tasks-service';

export interface ContainerdVersion {
  version: string;
  revision: string;
}

export class ContainerdClient {
  readonly namespaces: NamespacesService;
  readonly containers: ContainerdContainersService;
  readonly tasks: TasksService;
  readonly content: ContentService;
  readonly images: ImagesService;
  readonly snapshots: SnapshotsService;
  readonly diff: DiffService;
  readonly leases: LeasesService;
  readonly events: ContainerdEventsService;

  private constructor(
    private readonly rpc: Rpc,
    private readonly ownsConnection: boolean,
    /** The snapshotter every snapshot, unpack and container of this client uses. */
    readonly snapshotter: string,
    private readonly localContent?: LocalContentPaths,
  ) {
    this.namespaces = new NamespacesService(rpc);
    this.containers = new ContainerdContainersService(rpc, snapshotter);
    this.tasks = new TasksService(rpc);
    this.content = new ContentService(rpc, localContent);
    this.images = new ImagesService(rpc);
    this.snapshots = new SnapshotsService(rpc, snapshotter);
    this.diff = new DiffService(rpc);
    this.leases = new LeasesService(rpc);
    this.events = new ContainerdEventsService(rpc);
  }

  /**
   * A client for the containerd socket at `address` (a path or `unix://` URL), acting in
   * `namespace`. The channel connects lazily: calls fail with UnavailableError while
   * containerd is down and succeed again once it is back. With `localContent` (a containerd on
   * this machine), blobs are written into its store directly (local-content.ts).
   */
  static connect(
    address: string,
    namespace: string,
    snapshotter = defaultSnapshotter,
    localContent?: LocalContentPaths,
  ): ContainerdClient {
    return new ContainerdClient(new Rpc(new Connection(address), namespace), true, snapshotter, localContent);
  }

  /** A directory on the snapshots' file system for layers applied before their snapshot exists. */
  get layerStaging(): string | undefined {
    return this.localContent && `${this.localContent.staging}/layers`;
  }

  get namespace(): string {
    return this.rpc.namespace;
  }

  get lease(): string | undefined {
    return this.rpc.lease;
  }

  /** A view on the same channel whose calls all carry the lease (content, snapshots, images). */
  withLease(leaseId: string): ContainerdClient {
    return new ContainerdClient(
      new Rpc(this.rpc.connection, this.rpc.namespace, leaseId),
      false,
      this.snapshotter,
      this.localContent,
    );
  }

  /** A view on the same channel acting in another namespace. */
  withNamespace(namespace: string): ContainerdClient {
    return new ContainerdClient(
      new Rpc(this.rpc.connection, namespace, this.rpc.lease),
      false,
      this.snapshotter,
      this.localContent,
    );
  }

  async version(): Promise<ContainerdVersion> {
    const res = await this.rpc.unary<ContainerdVersion>('version.v1.Version', 'Version', {});
    return { version: res.version, revision: res.revision };
  }

  /** Closes the channel; views made by withLease/withNamespace close with their parent only. */
  close(): void {
    if (this.ownsConnection) this.rpc.connection.close();
  }
}
