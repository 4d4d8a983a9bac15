// Picks the storage driver the configuration asks for: S3, a filesystem root directory from a
// Distribution config, or the --data directory.
import type { RegistryConfig } from '../config';
import { s3Endpoint } from '../distribution-config';
import type { StorageDriver } from './driver';
import { FilesystemDriver } from './filesystem-driver';
import { S3Client } from './s3-client';
import { S3Driver } from './s3-driver';

/** The driver; `dataDir` opens (creating) a local directory, needed unless the config names storage. */
export function driverFromConfig(config: RegistryConfig, dataDir?: () => string): StorageDriver {
  const s3 = config.storage?.s3;
  if (s3 && dataDir) throw new Error('--data names a directory but the configuration stores on S3: give one');
  if (s3) {
    const client = new S3Client({
      endpoint: s3Endpoint(s3),
      region: s3.region,
      bucket: s3.bucket,
      accessKey: s3.accessKey,
      secretKey: s3.secretKey,
      skipVerify: s3.skipVerify,
      storageClass: s3.storageClass,
    });
    return new S3Driver(client, {
      rootDirectory: s3.rootDirectory,
      chunkSize: s3.chunkSize,
      copyThreshold: s3.multipartCopyThresholdSize,
      copyChunkSize: s3.multipartCopyChunkSize,
      concurrency: s3.multipartCopyMaxConcurrency,
    });
  }
  if (dataDir) return new FilesystemDriver(dataDir());
  const root = config.storage?.filesystem?.rootDirectory;
  if (!root) throw new Error('no storage: give --data DIR or a storage section in the configuration');
  return new FilesystemDriver(root);
}
