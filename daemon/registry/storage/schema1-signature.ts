// Signed schema1 manifests carry JSON Web Signatures in libtrust's "pretty JWS" form: each
// signature's protected header says how long the signed prefix of the body is and what tail
// closes it. Verification rebuilds that payload and checks every signature against its key.
import { createPublicKey, verify, type JsonWebKey, type KeyObject } from 'node:crypto';
import { RegistryError } from '../api/error-codes';

interface JwsSignature {
  header?: { jwk?: JsonWebKey; x5c?: string[]; alg?: string };
  signature?: string;
  protected?: string;
}

const algorithms: Record<string, { hash: string; ec: boolean }> = {
  ES256: { hash: 'sha256', ec: true },
  ES384: { hash: 'sha384', ec: true },
  ES512: { hash: 'sha512', ec: true },
  RS256: { hash: 'sha256', ec: false },
  RS384: { hash: 'sha384', ec: false },
  RS512: { hash: 'sha512', ec: false },
};

function unverified(message: string): RegistryError {
  return new RegistryError('MANIFEST_UNVERIFIED', `manifest failed signature verification: ${message}`);
}

function keyOf(header: NonNullable<JwsSignature['header']>): KeyObject {
  if (header.jwk) return createPublicKey({ key: header.jwk, format: 'jwk' });
  if (header.x5c?.length) {
    const pem = `-----BEGIN CERTIFICATE-----\n${header.x5c[0]}\n-----END CERTIFICATE-----\n`;
    return createPublicKey(pem);
  }
  throw unverified('signature has neither jwk nor x5c');
}

/** Verifies every signature of a signed schema1 body and returns the signed payload. */
export function verifySchema1(body: Buffer, signatures: unknown): Buffer {
  if (!Array.isArray(signatures) || signatures.length === 0) throw unverified('no signatures');
  let payload: Buffer | undefined;
  for (const sig of signatures as JwsSignature[]) {
    if (!sig?.header || typeof sig.protected !== 'string' || typeof sig.signature !== 'string') {
      throw unverified('malformed signature');
    }
    let format: { formatLength?: unknown; formatTail?: unknown };
    try {
      format = JSON.parse(Buffer.from(sig.protected, 'base64url').toString());
    } catch {
      throw unverified('malformed protected header');
    }
    const { formatLength, formatTail } = format;
    if (typeof formatLength !== 'number' || typeof formatTail !== 'string' || formatLength > body.length) {
      throw unverified('protected header lacks formatLength/formatTail');
    }
    const signed = Buffer.concat([body.subarray(0, formatLength), Buffer.from(formatTail, 'base64url')]);
    if (payload && !payload.equals(signed)) throw unverified('signatures cover different payloads');
    payload = signed;
    const alg = algorithms[sig.header.alg ?? ''];
    if (!alg) throw unverified(`unsupported algorithm ${sig.header.alg}`);
    let key: KeyObject;
    try {
      key = keyOf(sig.header);
    } catch (err) {
      if (err instanceof RegistryError) throw err;
      throw unverified('invalid key');
    }
    const input = Buffer.from(`${sig.protected}.${signed.toString('base64url')}`);
    const ok = verify(
      alg.hash,
      input,
      alg.ec ? { key, dsaEncoding: 'ieee-p1363' } : key,
      Buffer.from(sig.signature, 'base64url'),
    );
    if (!ok) throw unverified('signature does not match');
  }
  return payload as Buffer;
}
