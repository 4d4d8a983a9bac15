// A small token endpoint for Distribution's `auth: token` (tests only): it checks Basic
// credentials or a refresh token and issues RS256 JWTs carrying the asked scopes, signed by a key
// whose self-signed certificate the registry trusts (`rootCertBundle`).
import { execFileSync } from 'node:child_process';
import { createPrivateKey, createSign, randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
// A test fixture serves HTTP; the engine code under test still never imports it.
import { createServer, type IncomingMessage, type Server } from 'node:http';

export interface TokenServer {
  realm: string;
  service: string;
  issuer: string;
  rootCertBundle: string;
  /** Requests seen: method, scopes and how the client authenticated. */
  requests: { method: string; scopes: string[]; grant: 'basic' | 'refresh_token' | 'anonymous' }[];
  /** The refresh token issued to a client that logged in (an identitytoken). */
  refreshToken: string;
  stop(): Promise<void>;
}

function b64url(data: string | Buffer): string {
  return Buffer.from(data).toString('base64url');
}

function access(scopes: string[]) {
  return scopes
    .map((s) => /^repository:([^:]+):(.+)$/.exec(s))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ type: 'repository', name: m[1], actions: m[2].split(',') }));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let body = '';
  for await (const chunk of req) body += chunk;
  return body;
}

export async function startTokenServer(
  dir: string,
  user: { username: string; password: string },
): Promise<TokenServer> {
  const keyFile = path.join(dir, 'token-key.pem');
  const certFile = path.join(dir, 'token-cert.pem');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      keyFile,
      '-out',
      certFile,
      '-days',
      '1',
      '-subj',
      '/CN=svc-test-token',
    ],
    { stdio: 'ignore' },
  );
  const key = createPrivateKey(readFileSync(keyFile));
  const cert = new X509Certificate(readFileSync(certFile));
  const service = 'svc-test-registry';
  const issuer = 'svc-test-issuer';
  const refreshToken = randomUUID();
  const requests: TokenServer['requests'] = [];

  const sign = (subject: string, scopes: string[]) => {
    const now = Math.floor(Date.now() / 1000);
    const header = { alg: 'RS256', typ: 'JWT', x5c: [cert.raw.toString('base64')] };
    const claims = {
      iss: issuer,
      sub: subject,
      aud: service,
      exp: now + 300,
      nbf: now - 10,
      iat: now,
      jti: randomUUID(),
      access: access(scopes),
    };
    const input = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
    return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
  };

  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const reply = (status: number, body: object) => {
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'POST') {
      const form = new URLSearchParams(await readBody(req));
      const scopes = (form.get('scope') ?? '').split(' ').filter(Boolean);
      requests.push({ method: 'POST', scopes, grant: 'refresh_token' });
      if (form.get('grant_type') !== 'refresh_token' || form.get('refresh_token') !== refreshToken) {
        return reply(401, { errors: [{ code: 'UNAUTHORIZED', message: 'invalid refresh token' }] });
      }
      return reply(200, { access_token: sign(user.username, scopes), expires_in: 300 });
    }
    const scopes = url.searchParams.getAll('scope');
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    if (!basic) {
      requests.push({ method: 'GET', scopes, grant: 'anonymous' });
      return reply(200, { token: sign('', []) });
    }
    requests.push({ method: 'GET', scopes, grant: 'basic' });
    if (Buffer.from(basic[1], 'base64').toString() !== `${user.username}:${user.password}`) {
      return reply(401, { errors: [{ code: 'UNAUTHORIZED', message: 'bad credentials' }] });
    }
    reply(200, { token: sign(user.username, scopes), expires_in: 300, refresh_token: refreshToken });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    realm: `http://127.0.0.1:${port}/token`,
    service,
    issuer,
    rootCertBundle: certFile,
    requests,
    refreshToken,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
