// Bearer token auth: requests carry a token from our /token endpoint. A missing, invalid or
// too narrow token gets 401 with a Bearer challenge naming the scope to ask for; a token of an
// account the rules will never grant that scope gets 403 DENIED.
import type { IncomingMessage } from 'node:http';
import { AuthError, covers, formatScope, type AccessItem, type AuthResult, type Authorizer } from './access';
import type { TokenIssuer } from './token-issuer';

export class TokenAuthorizer implements Authorizer {
  constructor(
    private readonly issuer: TokenIssuer,
    private readonly realm?: string,
  ) {}

  async authorize(req: IncomingMessage, needed: AccessItem[], baseUrl: string): Promise<AuthResult> {
    const realm = this.realm ?? `${baseUrl}/token`;
    let challenge = `Bearer realm="${realm}",service="${this.issuer.options.service}"`;
    if (needed.length) challenge += `,scope="${needed.map(formatScope).join(' ')}"`;
    const header = req.headers.authorization;
    const token = header && /^bearer /i.test(header) ? header.slice(7).trim() : undefined;
    const claims = token ? this.issuer.verify(token) : undefined;
    if (!claims) throw new AuthError('UNAUTHORIZED', challenge + (token ? ',error="invalid_token"' : ''));
    const account = claims.sub || undefined;
    const missing = needed.filter((item) => !covers(claims.access, item));
    if (missing.length) {
      const never = missing.some(
        (item) => this.issuer.allowedActions(account, item).length < item.actions.length,
      );
      if (never && account !== undefined) {
        throw new AuthError('DENIED', undefined, undefined, missing.map(formatScope));
      }
      throw new AuthError('UNAUTHORIZED', `${challenge},error="insufficient_scope"`);
    }
    return { account, allows: (item) => covers(claims.access, item) };
  }
}
