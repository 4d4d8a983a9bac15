// The whole on-disk layout, in one place: nothing else concatenates storage paths.
//
//   blobs/<alg>/<first two hex>/<hex>/data                      content, shared by all repositories
//   repositories/<name>/_layers/<alg>/<hex>/link                 blobs linked into a repository
//   repositories/<name>/_manifests/revisions/<alg>/<hex>/link    manifests of a repository
//   repositories/<name>/_manifests/tags/<tag>/current/link       what a tag points at
//   repositories/<name>/_manifests/referrers/<alg>/<hex>/<alg>/<hex>/link   manifests whose subject is <alg>:<hex>
//   repositories/<name>/_uploads/<uuid>/{data,startedat,committed}   uploads in progress
import type { Digest } from '../../lib/digest';
import { digestAlgorithm, digestHex } from '../../lib/digest';

/** The registry's own entries in a repository's directory; any other entry is a child name. */
export const repositoryEntries = { layers: '_layers', manifests: '_manifests', uploads: '_uploads' } as const;
const { layers, manifests, uploads } = repositoryEntries;

function digestPath(digest: Digest): string {
  return `${digestAlgorithm(digest)}/${digestHex(digest)}`;
}

export const paths = {
  blobsRoot: (): string => 'blobs',
  blobAlgorithmDir: (algorithm: string): string => `blobs/${algorithm}`,
  blobData: (digest: Digest): string => {
    const hex = digestHex(digest);
    return `blobs/${digestAlgorithm(digest)}/${hex.slice(0, 2)}/${hex}/data`;
  },
  blobDir: (digest: Digest): string => {
    const hex = digestHex(digest);
    return `blobs/${digestAlgorithm(digest)}/${hex.slice(0, 2)}/${hex}`;
  },
  repositoriesRoot: (): string => 'repositories',
  repository: (name: string): string => `repositories/${name}`,
  layersDir: (name: string): string => `repositories/${name}/${layers}`,
  layerLink: (name: string, digest: Digest): string =>
    `repositories/${name}/${layers}/${digestPath(digest)}/link`,
  manifestsDir: (name: string): string => `repositories/${name}/${manifests}`,
  revisionsDir: (name: string, algorithm: string): string =>
    `repositories/${name}/${manifests}/revisions/${algorithm}`,
  revisionLink: (name: string, digest: Digest): string =>
    `repositories/${name}/${manifests}/revisions/${digestPath(digest)}/link`,
  referrersDir: (name: string, subject: Digest, algorithm: string): string =>
    `repositories/${name}/${manifests}/referrers/${digestPath(subject)}/${algorithm}`,
  referrerLink: (name: string, subject: Digest, digest: Digest): string =>
    `repositories/${name}/${manifests}/referrers/${digestPath(subject)}/${digestPath(digest)}/link`,
  tagsDir: (name: string): string => `repositories/${name}/${manifests}/tags`,
  tag: (name: string, tag: string): string => `repositories/${name}/${manifests}/tags/${tag}`,
  tagLink: (name: string, tag: string): string =>
    `repositories/${name}/${manifests}/tags/${tag}/current/link`,
  uploadsDir: (name: string): string => `repositories/${name}/${uploads}`,
  upload: (name: string, uuid: string): string => `repositories/${name}/${uploads}/${uuid}`,
  uploadData: (name: string, uuid: string): string => `repositories/${name}/${uploads}/${uuid}/data`,
  uploadStartedAt: (name: string, uuid: string): string =>
    `repositories/${name}/${uploads}/${uuid}/startedat`,
  uploadCommitted: (name: string, uuid: string): string =>
    `repositories/${name}/${uploads}/${uuid}/committed`,
};

/** Directory entries under repositories/<name>/ that belong to the registry, not to child names. */
export const reservedEntries = new Set<string>(Object.values(repositoryEntries));
