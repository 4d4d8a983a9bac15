// Picks the authorizer the configuration asks for: none, htpasswd basic, or bearer tokens.
import type { RegistryConfig } from '../config';
import { noAuth, type Authorizer } from './access';
import { Htpasswd } from './htpasswd';
import { HtpasswdAuthorizer } from './htpasswd-authorizer';
import { CertTokenVerifier } from './cert-token-verifier';
import { TokenAuthorizer } from './token-authorizer';
import { TokenIssuer } from './token-issuer';

export interface AuthSetup {
  authorizer: Authorizer;
  tokens?: { issuer: TokenIssuer; users?: Htpasswd };
}

export function authorizerFromConfig(config: RegistryConfig): AuthSetup {
  const auth = config.auth;
  if (auth?.htpasswd) {
    const users = new Htpasswd(auth.htpasswd.path);
    return { authorizer: new HtpasswdAuthorizer(users, auth.htpasswd.realm ?? 'svc-registry') };
  }
  if (auth?.token?.rootCertBundle) {
    const t = auth.token;
    if (!t.realm || !t.service || !t.issuer)
      throw new Error('config: auth.token with a rootcertbundle needs realm, service and issuer');
    const verifier = new CertTokenVerifier({
      issuer: t.issuer,
      service: t.service,
      rootCertBundle: t.rootCertBundle!,
    });
    return { authorizer: new TokenAuthorizer(verifier, t.realm) };
  }
  if (auth?.token) {
    const t = auth.token;
    const issuer = new TokenIssuer({
      issuer: t.issuer ?? 'svc-registry',
      service: t.service ?? 'svc-registry',
      expirySeconds: t.expirySeconds ?? 300,
      access: t.access,
      secret: t.secret,
    });
    const users = t.htpasswd ? new Htpasswd(t.htpasswd) : undefined;
    return { authorizer: new TokenAuthorizer(issuer, t.realm), tokens: { issuer, users } };
  }
  return { authorizer: noAuth };
}
