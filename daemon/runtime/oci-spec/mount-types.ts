// Mount requests parsed from Binds, Mounts, Tmpfs, Volumes and VolumesFrom, before and after
// the engine has turned volume names into host paths.
import type { MountPropagation } from '../../api/container-types';

export interface BindRequest {
  Type: 'bind';
  Source: string;
  Destination: string;
  ReadOnly: boolean;
  Propagation: MountPropagation;
  Recursive: boolean;
  /** Legacy Binds create a missing host directory; HostConfig.Mounts refuse one. */
  CreateSource: boolean;
}

export interface VolumeRequest {
  Type: 'volume';
  /** '' for an anonymous volume, named by the engine. */
  Name: string;
  Destination: string;
  ReadOnly: boolean;
  NoCopy: boolean;
  /** '' when none was named: an existing volume keeps its own, a new one is local. */
  Driver: string;
  Labels: Record<string, string>;
  DriverOptions: Record<string, string>;
}

export interface TmpfsRequest {
  Type: 'tmpfs';
  Destination: string;
  ReadOnly: boolean;
  /** Mount flags and data (size=, mode=) merged over the defaults noexec,nosuid,nodev. */
  Options: string[];
}

export type MountRequest = BindRequest | VolumeRequest | TmpfsRequest;

/** A volume the engine has created or found: Source is its host directory. */
export interface ResolvedVolume extends VolumeRequest {
  Source: string;
}

export type ResolvedMount = BindRequest | TmpfsRequest | ResolvedVolume;
