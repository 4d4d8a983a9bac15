// Bearer token auth: requests carry a token from our /token endpoint or, on a Distribution
// config's auth.token, from an outside token server. A missing, invalid or too narrow token
// gets 401 with a Bearer challenge naming the scope to ask for; with our own endpoint, a token
// of an account the rules will never grant that scope gets 403 DENIED.
import type { IncomingMessage } from 'node:http';
import { AuthError, covers, formatScope, type AccessItem, type AuthResult, type Authorizer } from './access';
import type { TokenClaims } from './token-issuer';

/** What checks a token: our own issuer, or the certificates of an outside token server. */
export interface TokenVerifier {
  readonly service: string;
  verify(token: string): TokenClaims | undefined;
  /** The actions the rules would ever grant; absent when an outside server decides. */
  allowedActions?(account: string | undefined, item: AccessItem): string[];
}

export class TokenAuthorizer implements Authorizer {
  constructor(
    private readonly issuer: TokenVerifier,
    private readonly realm?: string,
  ) {}

  async authorize(req: IncomingMessage, needed: AccessItem[], baseUrl: string): Promise<AuthResult> {
    const realm = this.realm ?? `${baseUrl}/token`;
    let challenge = `Bearer realm="${realm}",service="${this.issuer.service}"`;
    if (needed.length) challenge += `,scope="${needed.map(formatScope).join(' ')}"`;
    const header = req.headers.authorization;
    const token = header && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
    const claims = token ? this.issuer.verify(token) : undefined;
    if (!claims) throw new AuthError('UNAUTHORIZED', challenge + (token ? ',error="invalid_token"' : ''));
    const account = claims.sub || undefined;
    const missing = needed.filter((item) => !covers(claims.access, item));
    if (missing.length) {
      const rules = this.issuer.allowedActions?.bind(this.issuer);
      const never = rules && missing.some((item) => rules(account, item).length < item.actions.length);
      if (never && account !== undefined) {
        throw new AuthError('DENIED', undefined, undefined, missing.map(formatScope));
      }
      throw new AuthError('UNAUTHORIZED', `${challenge},error="insufficient_scope"`);
    }
    return { account, allows: (item) => covers(claims.access, item) };
  }
}
