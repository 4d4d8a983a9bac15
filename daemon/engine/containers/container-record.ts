// What svcd keeps on disk for one container (containers/<id>/config.json): everything inspect
// shows, plus what the engine needs to rebuild its view after a restart or a kill -9.
import type { ContainerStateJson, PortBindingJson } from '../../api/container-summary-types';
import type { ContainerConfig, HostConfig } from '../../api/container-types';
import type { ResolvedMount } from '../../runtime/oci-spec/mount-types';
import type { EndpointState, NetworkAttachment } from '../networks/container-networking';

export interface ContainerFilesRecord {
  hostsPath: string;
  resolvConfPath: string;
  hostnamePath: string;
}

export interface ContainerRecord {
  Id: string;
  /** RFC 3339 with nanoseconds. */
  Created: string;
  /** With its leading slash, as inspect shows it. */
  Name: string;
  Path: string;
  Args: string[];
  Config: ContainerConfig;
  HostConfig: HostConfig;
  /** The image ID (config digest). */
  Image: string;
  State: ContainerStateJson;
  RestartCount: number;
  /** Set by stop/kill through the API, cleared by start: restart policies leave such a container alone. */
  ManuallyStopped: boolean;
  Mounts: ResolvedMount[];
  /** Volumes created for this container (anonymous): removed with it when `v` is given. */
  AnonymousVolumes: string[];
  Files: ContainerFilesRecord;
  /** Host path where the container's root filesystem is mounted. */
  Rootfs: string;
  /** Active snapshot holding the container's writable layer, and its init layer below it. */
  SnapshotKey: string;
  InitSnapshotKey: string;
  /** The storage driver (snapshotter) its layers are made with (absent in records from before). */
  Driver?: string;
  /** Network mode actually in effect (see container-network.ts). */
  NetworkMode: string;
  /** The networks it joins at each start, by network name (absent in records from before networks). */
  Networks?: Record<string, NetworkAttachment>;
  /** The endpoints of the current run, by network name; empty when not running. */
  Endpoints?: Record<string, EndpointState>;
  /** The ports the current run publishes (NetworkSettings.Ports). */
  Ports?: Record<string, PortBindingJson[] | null>;
}

/** The zero time Docker shows for a StartedAt/FinishedAt that never happened. */
export const ZERO_TIME = '0001-01-01T00:00:00Z';

export function nowRfc3339Nano(): string {
  const now = Date.now();
  const extraNanos = String(process.hrtime.bigint() % 1_000_000n).padStart(6, '0');
  return new Date(now).toISOString().replace(/\.(\d{3})Z$/, `.$1${extraNanos}Z`);
}

export function toRfc3339Nano(date: Date | undefined): string {
  return date ? date.toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z') : nowRfc3339Nano();
}

export function freshState(): ContainerStateJson {
  return {
    Status: 'created',
    Running: false,
    Paused: false,
    Restarting: false,
    OOMKilled: false,
    Dead: false,
    Pid: 0,
    ExitCode: 0,
    Error: '',
    StartedAt: ZERO_TIME,
    FinishedAt: ZERO_TIME,
  };
}
