// The registry wire shapes of images, as the OCI image spec and Docker's image manifest schema 2
// define them: content descriptors, image manifests and indexes (manifest lists), image configs.
// Every part of the project that reads or writes them uses these; narrower views derive from them.
import type { OciImageConfig } from './image-types';

export interface Platform {
  architecture: string;
  os: string;
  variant?: string;
  'os.version'?: string;
  'os.features'?: string[];
}

export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  urls?: string[];
  annotations?: Record<string, string>;
  platform?: Platform;
}

export interface ImageManifest {
  schemaVersion: 2;
  mediaType?: string;
  config: Descriptor;
  layers: Descriptor[];
  annotations?: Record<string, string>;
}

export interface ImageIndex {
  schemaVersion: 2;
  mediaType?: string;
  manifests: Descriptor[];
  annotations?: Record<string, string>;
}

/**
 * A manifest or an index as fetched, before its media type says which: the fields of both, each
 * maybe absent, and whatever schema version the registry wrote.
 */
export type ManifestDocument = Partial<
  Omit<ImageManifest, 'schemaVersion'> & Omit<ImageIndex, 'schemaVersion'>
> & {
  schemaVersion: number;
};

/**
 * An image config as a registry or an archive hands it over (the complete one, as stored, is
 * OciImageConfig): no field is sure to be there, and keys this project does not read pass through.
 */
export type ImageConfig = Partial<OciImageConfig> & Record<string, unknown>;
