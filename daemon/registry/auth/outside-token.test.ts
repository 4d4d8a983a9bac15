// Distribution's `auth.token` on svc-registry: bearer tokens of an outside token server, trusted
// through the certificate bundle it signs with. The token server is the engine tests' (RS256
// JWTs with an x5c chain, as docker_auth and Harbor issue); the challenges are compared with
// Distribution 2.8's own on the same token server; skopeo logs in through it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { createPrivateKey, createPublicKey, createSign, randomUUID, type KeyObject } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sha256 } from '../../lib/digest';
import { http, type HttpResponse } from '../../testing/http-client';
import { startDistribution, type Distribution } from '../../testing/distribution';
import { startTokenServer, type TokenServer } from '../../testing/token-server';
import { writeBusyboxLayout, type OciImage } from '../testing/oci-layout';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { libtrustKeyId } from './cert-token-verifier';

const user = { username: 'carol', password: 'tokens-please' };
const hasDistribution = spawnSync('docker-registry', ['--version']).status === 0;
const hasSkopeo = spawnSync('skopeo', ['--version']).status === 0;

let scratch: string;
let tokens: TokenServer;
let reg: RegistryProcess;
let tokenKey: KeyObject;
let image: OciImage | undefined;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-registry-outside-token-'));
  tokens = await startTokenServer(scratch, user);
  tokenKey = createPrivateKey(await readFile(join(scratch, 'token-key.pem')));
  reg = await startRegistry({
    config: {
      version: '0.1',
      storage: { filesystem: { rootdirectory: join(scratch, 'storage') } },
      auth: {
        token: {
          realm: tokens.realm,
          service: tokens.service,
          issuer: tokens.issuer,
          rootcertbundle: tokens.rootCertBundle,
        },
      },
    },
  });
  if (hasSkopeo) image = await writeBusyboxLayout(join(scratch, 'src'), 'v1', join(scratch, 'build'));
});
after(async () => {
  await reg?.stop();
  await tokens?.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface Claims {
  iss?: string;
  aud?: string | string[];
  exp?: number;
  access?: { type: string; name: string; actions: string[] }[];
}

/** A JWT signed by `key`, its header naming the key by `kid` unless given otherwise. */
function jwt(claims: Claims, key = tokenKey, header: Record<string, unknown> = {}): string {
  const now = Math.floor(Date.now() / 1000);
  const body = {
    iss: tokens.issuer,
    sub: user.username,
    aud: tokens.service,
    exp: now + 300,
    nbf: now - 10,
    iat: now,
    jti: randomUUID(),
    access: [],
    ...claims,
  };
  const kid = libtrustKeyId(createPublicKey(key));
  const head = { alg: 'RS256', typ: 'JWT', kid, ...header };
  const b64 = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const input = `${b64(head)}.${b64(body)}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(key).toString('base64url')}`;
}

const pull = (name: string) => [{ type: 'repository', name, actions: ['pull'] }];
const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const challenge = (res: HttpResponse) => String(res.headers['www-authenticate']);

test('without a token: 401 with the Bearer challenge naming realm, service and scope', async () => {
  const root = await http(`${reg.url}/v2/`);
  assert.equal(root.status, 401);
  assert.equal(challenge(root), `Bearer realm="${tokens.realm}",service="${tokens.service}"`);
  const manifest = await http(`${reg.url}/v2/team/app/manifests/latest`);
  assert.equal(manifest.status, 401);
  assert.equal(
    challenge(manifest),
    `Bearer realm="${tokens.realm}",service="${tokens.service}",scope="repository:team/app:pull"`,
  );
  assert.equal(manifest.json<{ errors: { code: string }[] }>().errors[0].code, 'UNAUTHORIZED');
});

test('a token of the bundle’s key is honoured for what it grants, by x5c chain or by kid', async () => {
  const got = await http(`${tokens.realm}?service=${tokens.service}&scope=repository:team/app:pull`, {
    headers: {
      Authorization: `Basic ${Buffer.from(`${user.username}:${user.password}`).toString('base64')}`,
    },
  });
  const x5c = got.json<{ token: string }>().token;
  assert.equal((await http(`${reg.url}/v2/`, { headers: bearer(x5c) })).status, 200);
  assert.equal((await http(`${reg.url}/v2/team/app/tags/list`, { headers: bearer(x5c) })).status, 404);
  const byKid = jwt({ access: pull('team/app') });
  const tags = await http(`${reg.url}/v2/team/app/tags/list`, { headers: bearer(byKid) });
  assert.equal(tags.status, 404, 'authorized: the repository is simply unknown');
  // Pull only: a push asks for more, and the client is told which scope to fetch.
  const push = await http(`${reg.url}/v2/team/app/blobs/uploads/`, {
    method: 'POST',
    headers: bearer(byKid),
  });
  assert.equal(push.status, 401);
  assert.match(challenge(push), /scope="repository:team\/app:pull,push",error="insufficient_scope"$/);
});

test('tokens of another key, issuer or audience, or expired, are refused as invalid', async () => {
  const otherKeyFile = join(scratch, 'other-key.pem');
  execFileSync('openssl', [
    'genpkey',
    '-algorithm',
    'RSA',
    '-pkeyopt',
    'rsa_keygen_bits:2048',
    '-out',
    otherKeyFile,
  ]);
  const otherKey = createPrivateKey(await readFile(otherKeyFile));
  const now = Math.floor(Date.now() / 1000);
  const bad = {
    'another key': jwt({ access: pull('team/app') }, otherKey),
    "another key claiming the bundle's kid": jwt({ access: pull('team/app') }, otherKey, {
      kid: libtrustKeyId(createPublicKey(tokenKey)),
    }),
    'another issuer': jwt({ iss: 'someone-else', access: pull('team/app') }),
    'another audience': jwt({ aud: 'other-registry', access: pull('team/app') }),
    expired: jwt({ exp: now - 3600, access: pull('team/app') }),
    'not a JWT': 'abc.def',
  };
  for (const [what, token] of Object.entries(bad)) {
    const res = await http(`${reg.url}/v2/team/app/tags/list`, { headers: bearer(token) });
    assert.equal(res.status, 401, what);
    assert.match(challenge(res), /,error="invalid_token"$/, what);
  }
  const listed = jwt({ aud: ['other-registry', tokens.service], access: pull('team/app') });
  assert.equal((await http(`${reg.url}/v2/team/app/tags/list`, { headers: bearer(listed) })).status, 404);
});

/** Distribution lists a scope's actions from a Go map, in any order from one answer to the next. */
const actionsSorted = (challenge: string) =>
  challenge.replace(/(scope="[^"]*:)([a-z*,]+)"/g, (_, head: string, actions: string) => {
    return `${head}${actions.split(',').sort().join(',')}"`;
  });

test(
  'the challenges are Distribution 2.8’s on the same token server',
  { skip: !hasDistribution },
  async () => {
    const distribution: Distribution = await startDistribution({
      token: {
        realm: tokens.realm,
        service: tokens.service,
        issuer: tokens.issuer,
        rootCertBundle: tokens.rootCertBundle,
      },
    });
    try {
      const cases: [string, string, Record<string, string>][] = [
        ['GET', '/v2/', {}],
        ['GET', '/v2/team/app/manifests/latest', {}],
        ['POST', '/v2/team/app/blobs/uploads/', bearer(jwt({ access: pull('team/app') }))],
        [
          'GET',
          '/v2/team/app/tags/list',
          bearer(jwt({ access: pull('team/app') }, tokenKey, { kid: 'AAAA' })),
        ],
      ];
      for (const [method, path, headers] of cases) {
        const [ours, theirs] = await Promise.all(
          [reg.url, distribution.url].map((base) => http(`${base}${path}`, { method, headers })),
        );
        assert.equal(ours.status, theirs.status, `${method} ${path}`);
        assert.equal(actionsSorted(challenge(ours)), actionsSorted(challenge(theirs)), `${method} ${path}`);
      }
    } finally {
      await distribution.stop();
    }
  },
);

test('skopeo logs in through the token server, pushes and pulls', { skip: !hasSkopeo }, async () => {
  // Not spawnSync: the token server answers from this very process.
  const run = (...args: string[]) =>
    new Promise<{ status: number | null; stdout: string; output: string }>((resolve) => {
      execFile('skopeo', ['--insecure-policy', ...args], { timeout: 90_000 }, (err, stdout, stderr) =>
        resolve({
          status: err ? (((err as { code?: unknown }).code as number | null) ?? 1) : 0,
          stdout,
          output: `${stdout}${stderr}`,
        }),
      );
    });
  const creds = `${user.username}:${user.password}`;
  const pushed = await run(
    'copy',
    '--dest-tls-verify=false',
    '--dest-creds',
    creds,
    `oci:${image!.dir}:v1`,
    `docker://${reg.host}/team/busybox:v1`,
  );
  assert.equal(pushed.status, 0, pushed.output);
  const wrong = await run(
    'inspect',
    '--tls-verify=false',
    '--creds',
    `${user.username}:nope`,
    `docker://${reg.host}/team/busybox:v1`,
  );
  assert.notEqual(wrong.status, 0, wrong.output);
  const inspected = await run(
    'inspect',
    '--raw',
    '--tls-verify=false',
    '--creds',
    creds,
    `docker://${reg.host}/team/busybox:v1`,
  );
  assert.equal(inspected.status, 0, inspected.output);
  assert.equal(sha256(inspected.stdout), image!.manifestDigest);
  const out = join(scratch, 'pulled');
  const pulled = await run(
    'copy',
    '--src-tls-verify=false',
    '--src-creds',
    creds,
    `docker://${reg.host}/team/busybox:v1`,
    `oci:${out}:v1`,
  );
  assert.equal(pulled.status, 0, pulled.output);
  assert.ok(existsSync(join(out, 'blobs/sha256', image!.layerDigest.slice(7))), 'the layer came back');
  assert.ok(
    tokens.requests.some(
      (r) => r.grant === 'basic' && r.scopes.includes('repository:team/busybox:pull,push'),
    ),
  );
});
