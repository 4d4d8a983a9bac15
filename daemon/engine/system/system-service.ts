// GET /version, /info and /system/df as data: no HTTP here, only facts gathered from the host,
// the runtime components and what the engine holds.
import type { SwarmInfo } from '../../api/swarm-types';
import type { StorageDriver } from '../../runtime/containerd/storage-driver';
import { readdirSync } from 'node:fs';
import { MAX_API_VERSION, MIN_API_VERSION } from '../../api/versions';
import type { ContainerSummary } from '../../api/container-summary-types';
import type { ImageSummary } from '../../api/image-types';
import type { InfoResponse, SystemDfResponse, VersionResponse } from '../../api/system-types';
import type { Volume } from '../../api/volume-types';
import type { ProductInfo } from '../../lib/product';
import type { CgroupSupport } from '../../runtime/oci-spec/host-facts';
import { goArch, type OsFacts } from './os-facts';
import type { ContainerUsage } from '../shared/container-usage';

export interface ComponentInfo {
  containerd: { version: string; revision: string };
  runc: { version: string; commit: string };
  init?: { version: string };
}

/** What the engine holds, as the other services report it. */
export interface SystemInventory {
  imagesForDiskUsage(): Promise<{ layersSize: number; images: ImageSummary[] }>;
  containersForDiskUsage(): Promise<ContainerSummary[]>;
  volumesForDiskUsage(): Promise<Volume[]>;
}

export interface SystemServiceDeps {
  product: ProductInfo;
  host: OsFacts;
  cgroup: CgroupSupport;
  dataRoot: string;
  engineId: string;
  components: () => Promise<ComponentInfo>;
  inventory: SystemInventory;
  /** /info's container counts. */
  containers: Pick<ContainerUsage, 'counts'>;
  eventListeners: () => number;
  insecureRegistries: string[];
  /** What /info names as the seccomp profile: `default`, `unconfined` or the daemon's file. */
  seccompProfile: string;
  /** Running in a rootlesskit user namespace (SecurityOptions `name=rootless`). */
  rootless: boolean;
  /** `none` where no cgroup can be written (rootless without delegation), as rootless Docker's. */
  cgroupDriver: 'cgroupfs' | 'none';
  /** The containerd snapshotter in use and why it was chosen. */
  storageDriver: StorageDriver;
  /** The Swarm block: this node's part in a swarm (inactive, active, locked). */
  swarm: () => SwarmInfo;
}

export class SystemService {
  constructor(private readonly deps: SystemServiceDeps) {}

  async version(): Promise<VersionResponse> {
    const { product, host } = this.deps;
    const c = await this.deps.components();
    const engineDetails = {
      ApiVersion: MAX_API_VERSION,
      MinAPIVersion: MIN_API_VERSION,
      GitCommit: product.gitCommit,
      GoVersion: `node${process.versions.node}`,
      Os: 'linux',
      Arch: goArch(),
      KernelVersion: host.kernelVersion,
      BuildTime: product.buildTime,
      Experimental: 'false',
    };
    return {
      Platform: { Name: `${product.name} Engine` },
      Components: [
        { Name: 'Engine', Version: product.version, Details: engineDetails },
        { Name: 'containerd', Version: c.containerd.version, Details: { GitCommit: c.containerd.revision } },
        { Name: 'runc', Version: c.runc.version, Details: { GitCommit: c.runc.commit } },
        ...(c.init ? [{ Name: 'tini', Version: c.init.version, Details: { GitCommit: '' } }] : []),
      ],
      Version: product.version,
      ApiVersion: MAX_API_VERSION,
      MinAPIVersion: MIN_API_VERSION,
      GitCommit: product.gitCommit,
      GoVersion: engineDetails.GoVersion,
      Os: 'linux',
      Arch: engineDetails.Arch,
      KernelVersion: host.kernelVersion,
      BuildTime: product.buildTime,
    };
  }

  async info(): Promise<InfoResponse> {
    const { host, cgroup, product } = this.deps;
    const counts = this.deps.containers.counts();
    const [images, c] = await Promise.all([this.deps.inventory.imagesForDiskUsage(), this.deps.components()]);
    const warnings: string[] = [];
    if (!cgroup.swapLimit) warnings.push('WARNING: No swap limit support');
    if (!host.ipv4Forwarding) warnings.push('WARNING: IPv4 forwarding is disabled');
    if (!host.bridgeNfIptables) warnings.push('WARNING: bridge-nf-call-iptables is disabled');
    const insecure = ['127.0.0.0/8', ...this.deps.insecureRegistries.filter((r) => r.includes('/'))];
    return {
      ID: this.deps.engineId,
      Containers: counts.total,
      ContainersRunning: counts.running,
      ContainersPaused: counts.paused,
      ContainersStopped: counts.stopped,
      Images: images.images.length,
      Driver: this.deps.storageDriver.name,
      DriverStatus: [
        ['Snapshotter', `containerd ${this.deps.storageDriver.name}`],
        ['Chosen', this.deps.storageDriver.reason],
      ],
      Plugins: {
        Volume: ['local'],
        Network: ['host', 'null'],
        Authorization: null,
        Log: ['json-file', 'none'],
      },
      MemoryLimit: cgroup.memoryLimit,
      SwapLimit: cgroup.swapLimit,
      KernelMemory: cgroup.kernelMemory,
      // No kernel TCP memory limits either, for the same reason as kernel memory.
      KernelMemoryTCP: cgroup.kernelMemory,
      CpuCfsPeriod: cgroup.cpuCfs,
      CpuCfsQuota: cgroup.cpuCfs,
      CPUShares: cgroup.cpuShares,
      CPUSet: cgroup.cpuset,
      PidsLimit: cgroup.pids,
      OomKillDisable: cgroup.oomKillDisable,
      IPv4Forwarding: host.ipv4Forwarding,
      BridgeNfIptables: host.bridgeNfIptables,
      BridgeNfIp6tables: host.bridgeNfIp6tables,
      Debug: false,
      NFd: openFileCount(),
      NGoroutines: 0,
      SystemTime: new Date().toISOString(),
      LoggingDriver: 'json-file',
      CgroupDriver: this.deps.cgroupDriver,
      CgroupVersion: host.cgroupVersion,
      NEventsListener: this.deps.eventListeners(),
      KernelVersion: host.kernelVersion,
      OperatingSystem: host.operatingSystem,
      OSVersion: host.osVersion,
      OSType: 'linux',
      Architecture: host.architecture,
      IndexServerAddress: 'https://index.docker.io/v1/',
      RegistryConfig: {
        AllowNondistributableArtifactsCIDRs: [],
        AllowNondistributableArtifactsHostnames: [],
        InsecureRegistryCIDRs: insecure,
        IndexConfigs: Object.fromEntries(
          [
            ['docker.io', true, true] as const,
            ...this.deps.insecureRegistries
              .filter((r) => !r.includes('/'))
              .map((r) => [r, false, false] as const),
          ].map(([name, secure, official]) => [
            name,
            { Name: name, Mirrors: [], Secure: secure, Official: official },
          ]),
        ),
        Mirrors: [],
      },
      NCPU: host.ncpu,
      MemTotal: host.memTotal,
      GenericResources: null,
      DockerRootDir: this.deps.dataRoot,
      HttpProxy: process.env.HTTP_PROXY ?? process.env.http_proxy ?? '',
      HttpsProxy: process.env.HTTPS_PROXY ?? process.env.https_proxy ?? '',
      NoProxy: process.env.NO_PROXY ?? process.env.no_proxy ?? '',
      Name: host.hostname,
      Labels: [],
      ExperimentalBuild: false,
      ServerVersion: product.version,
      Runtimes: { runc: { path: 'runc' } },
      DefaultRuntime: 'runc',
      Swarm: this.deps.swarm(),
      LiveRestoreEnabled: true,
      Isolation: '',
      InitBinary: c.init ? 'tini' : '',
      ContainerdCommit: { ID: c.containerd.revision, Expected: c.containerd.revision },
      RuncCommit: { ID: c.runc.commit, Expected: c.runc.commit },
      InitCommit: { ID: '', Expected: '' },
      SecurityOptions: [
        `name=seccomp,profile=${this.deps.seccompProfile}`,
        ...(this.deps.rootless ? ['name=rootless'] : []),
      ],
      Warnings: warnings,
    };
  }

  async diskUsage(): Promise<SystemDfResponse> {
    const inv = this.deps.inventory;
    const [images, containers, volumes] = await Promise.all([
      inv.imagesForDiskUsage(),
      inv.containersForDiskUsage(),
      inv.volumesForDiskUsage(),
    ]);
    return {
      LayersSize: images.layersSize,
      Images: images.images,
      Containers: containers,
      Volumes: volumes,
      BuildCache: [],
      // Deprecated, still present at 1.41: no builder cache exists here.
      BuilderSize: 0,
    };
  }
}

function openFileCount(): number {
  try {
    return readdirSync('/proc/self/fd').length;
  } catch {
    return 0;
  }
}
