// A pass-through that hashes and counts the bytes and fails (instead of ending) when they do not
// match the expected descriptor, so whatever reads it never sees a clean end on bad content.
// Without `checkDigest` it only counts: for a reader that verifies the digest itself.
import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';
import { InvalidParameterError } from '../../api/errors';

export class DigestMismatchError extends InvalidParameterError {
  constructor(
    readonly expected: string,
    readonly actual: string,
  ) {
    super(`digest mismatch: expected ${expected}, got ${actual}`);
  }
}

export class VerifyingStream extends Transform {
  private readonly hash: Hash | undefined;
  private bytes = 0;

  constructor(
    private readonly expected: { digest: string; size?: number },
    private readonly onBytes?: (bytes: number) => void,
    checkDigest = true,
  ) {
    super();
    const algorithm = expected.digest.slice(0, expected.digest.indexOf(':'));
    if (algorithm !== 'sha256' && algorithm !== 'sha512') {
      throw new InvalidParameterError(`unsupported digest algorithm in ${expected.digest}`);
    }
    this.hash = checkDigest ? createHash(algorithm) : undefined;
  }

  override _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    this.bytes += chunk.length;
    const { size } = this.expected;
    if (size !== undefined && size >= 0 && this.bytes > size) {
      cb(
        new InvalidParameterError(
          `size mismatch for ${this.expected.digest}: more than the expected ${size} bytes`,
        ),
      );
      return;
    }
    this.hash?.update(chunk);
    this.onBytes?.(this.bytes);
    cb(null, chunk);
  }

  override _flush(cb: TransformCallback): void {
    const { size, digest } = this.expected;
    if (size !== undefined && size >= 0 && this.bytes !== size) {
      cb(new InvalidParameterError(`size mismatch for ${digest}: expected ${size} bytes, got ${this.bytes}`));
      return;
    }
    if (!this.hash) return cb();
    const actual = `${digest.slice(0, digest.indexOf(':'))}:${this.hash.digest('hex')}`;
    cb(actual === digest ? null : new DigestMismatchError(digest, actual));
  }
}

/** The digest of bytes held in memory (manifests, configs), in the algorithm of `like`. */
export function digestOf(data: Buffer, like = 'sha256:'): string {
  const algorithm = like.startsWith('sha512:') ? 'sha512' : 'sha256';
  return `${algorithm}:${createHash(algorithm).update(data).digest('hex')}`;
}
