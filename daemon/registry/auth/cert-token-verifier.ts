// Bearer tokens of an outside token server, as Distribution's `auth.token` takes them: JWTs
// signed (RS*, ES*) by a key whose certificate chains to the `rootcertbundle`, named in the
// token's header either by its chain (`x5c`) or by its libtrust key ID (`kid`). The issuer and
// audience (the service) must match and the token be in date, with a minute's leeway for clocks.
import { createHash, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TokenClaims } from './token-issuer';

export interface CertTokenOptions {
  issuer: string;
  service: string;
  /** A PEM file of one or more certificates. */
  rootCertBundle: string;
}

const leewaySeconds = 60;
const maxChainLength = 8;

const algorithms: Record<string, { hash: string; ec: boolean }> = {
  RS256: { hash: 'sha256', ec: false },
  RS384: { hash: 'sha384', ec: false },
  RS512: { hash: 'sha512', ec: false },
  ES256: { hash: 'sha256', ec: true },
  ES384: { hash: 'sha384', ec: true },
  ES512: { hash: 'sha512', ec: true },
};

/** libtrust's key ID: the SHA-256 of the DER public key, 240 bits of it in base32, in groups of four. */
export function libtrustKeyId(key: KeyObject): string {
  const digest = createHash('sha256')
    .update(key.export({ type: 'spki', format: 'der' }))
    .digest()
    .subarray(0, 30);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of digest) bits += byte.toString(2).padStart(8, '0');
  const chars = bits.match(/.{5}/g)!.map((b) => alphabet[parseInt(b, 2)]);
  return chars.join('').match(/.{4}/g)!.join(':');
}

function certificates(pem: string): X509Certificate[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => new X509Certificate(block));
}

function inDate(cert: X509Certificate, now: number): boolean {
  return Date.parse(cert.validFrom) <= now && now <= Date.parse(cert.validTo);
}

function decodeJson(part: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, 'base64url').toString());
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export class CertTokenVerifier {
  private readonly roots: X509Certificate[];
  private readonly keysById = new Map<string, KeyObject>();

  constructor(readonly options: CertTokenOptions) {
    let pem: string;
    try {
      pem = readFileSync(options.rootCertBundle, 'utf8');
    } catch (err) {
      throw new Error(`auth.token.rootcertbundle: ${(err as Error).message}`, { cause: err });
    }
    this.roots = certificates(pem);
    if (!this.roots.length)
      throw new Error(`auth.token.rootcertbundle: no certificate in ${options.rootCertBundle}`);
    for (const root of this.roots) this.keysById.set(libtrustKeyId(root.publicKey), root.publicKey);
  }

  get service(): string {
    return this.options.service;
  }

  /** The leaf's key when the `x5c` chain ends at one of the roots, every certificate in date. */
  private chainKey(x5c: unknown, now: number): KeyObject | undefined {
    if (!Array.isArray(x5c) || !x5c.length || x5c.length > maxChainLength) return undefined;
    let chain: X509Certificate[];
    try {
      chain = x5c.map((der) => new X509Certificate(Buffer.from(String(der), 'base64')));
    } catch {
      return undefined;
    }
    let current = chain[0];
    const intermediates = chain.slice(1);
    for (let depth = 0; depth <= maxChainLength; depth++) {
      if (!inDate(current, now)) return undefined;
      if (this.roots.some((r) => r.fingerprint256 === current.fingerprint256)) return chain[0].publicKey;
      const signedBy = (c: X509Certificate) => current.checkIssued(c) && current.verify(c.publicKey);
      const root = this.roots.find(signedBy);
      if (root) return inDate(root, now) ? chain[0].publicKey : undefined;
      const next = intermediates.find(signedBy);
      if (!next) return undefined;
      current = next;
    }
    return undefined;
  }

  /** The claims of a valid token for this service, or undefined. */
  verify(token: string): TokenClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const header = decodeJson(parts[0]);
    const claims = decodeJson(parts[1]) as Partial<TokenClaims> | undefined;
    const alg = algorithms[String(header?.alg)];
    if (!header || !claims || !alg) return undefined;
    const now = Date.now();
    const key =
      header.x5c !== undefined
        ? this.chainKey(header.x5c, now)
        : typeof header.kid === 'string'
          ? this.keysById.get(header.kid)
          : undefined;
    if (!key) return undefined;
    const signature = Buffer.from(parts[2], 'base64url');
    const input = Buffer.from(`${parts[0]}.${parts[1]}`);
    const ok = verify(alg.hash, input, alg.ec ? { key, dsaEncoding: 'ieee-p1363' } : key, signature);
    if (!ok) return undefined;
    const seconds = now / 1000;
    const audiences = Array.isArray(claims.aud) ? claims.aud : [claims.aud];
    if (claims.iss !== this.options.issuer || !audiences.includes(this.options.service)) return undefined;
    if (typeof claims.exp !== 'number' || claims.exp + leewaySeconds < seconds) return undefined;
    if (typeof claims.nbf === 'number' && claims.nbf - leewaySeconds > seconds) return undefined;
    return {
      ...claims,
      sub: claims.sub ?? '',
      access: Array.isArray(claims.access) ? claims.access : [],
    } as TokenClaims;
  }
}
