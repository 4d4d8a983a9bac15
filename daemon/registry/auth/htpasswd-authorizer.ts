// Basic auth against an htpasswd file: an authenticated account may do everything.
import type { IncomingMessage } from 'node:http';
import { AuthError, basicCredentials, type AuthResult, type Authorizer } from './access';
import type { Htpasswd } from './htpasswd';

export class HtpasswdAuthorizer implements Authorizer {
  constructor(
    private readonly users: Htpasswd,
    private readonly realm: string,
  ) {}

  async authorize(req: IncomingMessage): Promise<AuthResult> {
    const challenge = `Basic realm="${this.realm}"`;
    const creds = basicCredentials(req);
    if (!creds) throw new AuthError('UNAUTHORIZED', challenge);
    if (!(await this.users.verify(creds.user, creds.password))) {
      throw new AuthError('UNAUTHORIZED', challenge, 'invalid username or password');
    }
    return { account: creds.user, allows: () => true };
  }
}
