// Builds signed schema1 manifests as libtrust does (pretty JWS), to test verification.
import { generateKeyPairSync, sign } from 'node:crypto';
import type { Digest } from '../../lib/digest';

export function signedSchema1(
  name: string,
  tag: string,
  layers: Digest[],
): { body: Buffer; payload: Buffer } {
  const doc = {
    schemaVersion: 1,
    name,
    tag,
    architecture: 'amd64',
    fsLayers: layers.map((blobSum) => ({ blobSum })),
    history: layers.map(() => ({ v1Compatibility: '{}' })),
  };
  const payload = Buffer.from(JSON.stringify(doc, null, 3));
  const tail = '\n}';
  const formatLength = payload.length - tail.length;
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const protectedHeader = Buffer.from(
    JSON.stringify({
      formatLength,
      formatTail: Buffer.from(tail).toString('base64url'),
      time: new Date().toISOString(),
    }),
  ).toString('base64url');
  const signature = sign('sha256', Buffer.from(`${protectedHeader}.${payload.toString('base64url')}`), {
    key: privateKey,
    dsaEncoding: 'ieee-p1363',
  }).toString('base64url');
  const signatures = [
    {
      header: { jwk: publicKey.export({ format: 'jwk' }), alg: 'ES256' },
      signature,
      protected: protectedHeader,
    },
  ];
  const body = Buffer.concat([
    payload.subarray(0, formatLength),
    Buffer.from(`,\n   "signatures": ${JSON.stringify(signatures, null, 3)}`),
    Buffer.from(tail),
  ]);
  return { body, payload };
}
