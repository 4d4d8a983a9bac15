// Content digests in the OCI form `algorithm:hex`.
import { createHash } from 'node:crypto';

export type Digest = `sha256:${string}` | `sha512:${string}`;

const digestPattern = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

export function isDigest(value: string): value is Digest {
  return digestPattern.test(value);
}

export function digestAlgorithm(digest: Digest): 'sha256' | 'sha512' {
  return digest.startsWith('sha512:') ? 'sha512' : 'sha256';
}

export function digestHex(digest: Digest): string {
  return digest.slice(digest.indexOf(':') + 1);
}

/** The digest of an empty tar archive (two zero blocks): a layer that changes nothing. */
export const EMPTY_TAR_DIGEST: Digest = sha256(Buffer.alloc(1024));

export function sha256(data: string | Uint8Array): Digest {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}
