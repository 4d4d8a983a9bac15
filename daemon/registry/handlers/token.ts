// GET /token: issues bearer tokens for the scopes asked, cut down to what the account may do.
// Callers authenticate with Basic credentials from the htpasswd file, or come anonymously.
import { RegistryError } from '../api/error-codes';
import { AuthError, basicCredentials, parseScope, type AccessItem } from '../auth/access';
import { sendJson, type Handler } from './context';

export const getToken: Handler = async ({ req, res, url, tokens }) => {
  if (!tokens) throw new RegistryError('UNSUPPORTED', 'token auth is not configured');
  const service = url.searchParams.get('service');
  if (service && service !== tokens.issuer.options.service) {
    throw new RegistryError('DENIED', `unknown service ${service}`);
  }
  let account: string | undefined;
  const creds = basicCredentials(req);
  if (creds) {
    if (!tokens.users || !(await tokens.users.verify(creds.user, creds.password))) {
      throw new AuthError('UNAUTHORIZED', 'Basic realm="svc-registry token"', 'invalid username or password');
    }
    account = creds.user;
  }
  const requested: AccessItem[] = url.searchParams
    .getAll('scope')
    .flatMap((s) => s.split(' '))
    .map(parseScope)
    .filter((item): item is AccessItem => item !== undefined);
  const { token, claims } = tokens.issuer.issue(account, requested);
  sendJson(res, 200, {
    token,
    access_token: token,
    expires_in: claims.exp - claims.iat,
    issued_at: new Date(claims.iat * 1000).toISOString(),
  });
};
