// Content digests in the OCI form `algorithm:hex`, computed while data streams past.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { InvalidParameterError } from '../api/errors';

export type Digest = `sha256:${string}` | `sha512:${string}`;

const digestPattern = /^(sha256:[a-f0-9]{64}|sha512:[a-f0-9]{128})$/;

export function isDigest(value: string): value is Digest {
  return digestPattern.test(value);
}

/** Parses a digest string, throwing InvalidParameterError for anything malformed or unsupported. */
export function parseDigest(value: string): Digest {
  if (!isDigest(value)) throw new InvalidParameterError(`invalid digest: ${JSON.stringify(value)}`);
  return value;
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

/** A pass-through stream that hashes and counts what flows through it. */
export class DigestingStream extends Transform {
  private readonly hash: Hash;
  private bytes = 0;

  constructor(readonly algorithm: 'sha256' | 'sha512' = 'sha256') {
    super();
    this.hash = createHash(algorithm);
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.hash.update(chunk);
    this.bytes += chunk.length;
    cb(null, chunk);
  }

  get size(): number {
    return this.bytes;
  }

  /** The digest of everything that has passed; call once, after the stream has ended. */
  digest(): Digest {
    return `${this.algorithm}:${this.hash.digest('hex')}` as Digest;
  }
}
