// Interfaces shared by the registry client, pull and push: the narrow ones through which blobs
// reach storage (BlobSink) or are read from it (BlobSource), and progress. The wire shapes they
// carry are in daemon/api/manifest-types.
import type { Readable } from 'node:stream';
import type { Descriptor } from '../../../api/manifest-types';

/**
 * Where fetched blobs go (a content store). `write` reads `stream` to its end; the stream errors
 * instead of ending when the bytes do not match `desc` (digest or size), and the sink must commit
 * the blob only after the stream ended without error, so a corrupt download leaves nothing.
 */
export interface BlobSink {
  /**
   * The sink checks each blob's digest as it commits it and keeps nothing on a mismatch (as
   * containerd's content store does): a pull's layers then stream in without a second hash.
   */
  readonly verifiesDigest?: boolean;
  has(digest: string): Promise<boolean>;
  write(desc: Descriptor, stream: Readable, signal?: AbortSignal): Promise<void>;
}

/** Where pushed (or saved) blobs are read from. */
export interface BlobSource {
  open(desc: Descriptor, signal?: AbortSignal): Promise<Readable>;
}

/**
 * One progress message, shaped after Docker's JSON progress stream: `id` is the short digest of
 * a layer (or absent for a whole-image message), `status` Docker's wording.
 */
export interface ProgressEvent {
  id?: string;
  status: string;
  current?: number;
  total?: number;
}

export type ProgressListener = (event: ProgressEvent) => void;

/** Docker's short layer id in progress messages: the first 12 hex digits. */
export function shortId(digest: string): string {
  return digest.slice(digest.indexOf(':') + 1, digest.indexOf(':') + 13);
}
