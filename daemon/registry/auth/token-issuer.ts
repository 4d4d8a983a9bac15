// Bearer tokens of our own /token endpoint: HS256-signed JWTs whose `access` claim lists the
// scopes granted, each cut down to what the access rules allow the account.
import { createHmac, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { AccessItem } from './access';

export interface AccessRule {
  /** An account name, '*' for any authenticated account, '' for anonymous callers. */
  account: string;
  /** A repository name, '*' for all, or a prefix pattern such as 'team/*'. */
  name: string;
  actions: string[];
}

export interface TokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  nbf: number;
  iat: number;
  jti: string;
  access: AccessItem[];
}

export interface TokenIssuerOptions {
  issuer: string;
  service: string;
  expirySeconds: number;
  /** Rules deciding what each account may get; when absent, authenticated accounts get all. */
  access?: AccessRule[];
  secret?: string;
}

function nameMatches(pattern: string, name: string): boolean {
  if (pattern === '*') return true;
  if (pattern.endsWith('/*')) return name.startsWith(pattern.slice(0, -1));
  return pattern === name;
}

function encode(value: unknown): string {
  return Buffer.from(JSON.stringify(value)).toString('base64url');
}

export class TokenIssuer {
  private readonly secret: Buffer;

  constructor(readonly options: TokenIssuerOptions) {
    this.secret = options.secret ? Buffer.from(options.secret) : randomBytes(32);
  }

  get service(): string {
    return this.options.service;
  }

  /** The actions of `item` the rules allow `account` (undefined = anonymous). */
  allowedActions(account: string | undefined, item: AccessItem): string[] {
    const rules = this.options.access;
    if (!rules) return account === undefined ? [] : item.actions;
    const applicable = rules.filter(
      (r) =>
        (account === undefined ? r.account === '' : r.account === '*' || r.account === account) &&
        nameMatches(r.name, item.name),
    );
    return item.actions.filter((a) =>
      applicable.some((r) => r.actions.includes(a) || r.actions.includes('*')),
    );
  }

  issue(account: string | undefined, requested: AccessItem[]): { token: string; claims: TokenClaims } {
    const now = Math.floor(Date.now() / 1000);
    const access = requested
      .map((item) => ({ ...item, actions: this.allowedActions(account, item) }))
      .filter((item) => item.actions.length > 0);
    const claims: TokenClaims = {
      iss: this.options.issuer,
      sub: account ?? '',
      aud: this.options.service,
      exp: now + this.options.expirySeconds,
      nbf: now - 1,
      iat: now,
      jti: randomUUID(),
      access,
    };
    const signingInput = `${encode({ alg: 'HS256', typ: 'JWT' })}.${encode(claims)}`;
    return { token: `${signingInput}.${this.sign(signingInput)}`, claims };
  }

  /** The claims of a valid token for this service, or undefined. */
  verify(token: string): TokenClaims | undefined {
    const parts = token.split('.');
    if (parts.length !== 3) return undefined;
    const expected = Buffer.from(this.sign(`${parts[0]}.${parts[1]}`));
    const given = Buffer.from(parts[2]);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    let claims: TokenClaims;
    try {
      claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
    } catch {
      return undefined;
    }
    const now = Math.floor(Date.now() / 1000);
    if (claims.iss !== this.options.issuer || claims.aud !== this.options.service) return undefined;
    if (!(claims.exp > now && claims.nbf <= now) || !Array.isArray(claims.access)) return undefined;
    return claims;
  }

  private sign(input: string): string {
    return createHmac('sha256', this.secret).update(input).digest('base64url');
  }
}
