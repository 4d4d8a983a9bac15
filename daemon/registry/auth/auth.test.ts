import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { sha256 } from '../../lib/digest';
import { http, type HttpResponse } from '../../testing/http-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';

let scratch: string;
let htpasswdFile: string;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-registry-auth-'));
  htpasswdFile = join(scratch, 'htpasswd');
  // htpasswd -B writes $2y$ hashes; bcryptjs writes $2b$, the same algorithm.
  const entry = (user: string, password: string) =>
    `${user}:${bcrypt.hashSync(password, 5).replace(/^\$2b\$/, '$2y$')}`;
  await writeFile(htpasswdFile, [entry('alice', 'secret'), entry('bob', 'hunter2')].join('\n') + '\n');
});
after(() => rm(scratch, { recursive: true, force: true }));

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const codes = (res: HttpResponse) => res.json<{ errors: { code: string }[] }>().errors.map((e) => e.code);

async function uploadBlob(url: string, name: string, authorization: string): Promise<number> {
  const res = await http(`${url}/v2/${name}/blobs/uploads/?digest=${sha256('auth blob')}`, {
    method: 'POST',
    body: 'auth blob',
    headers: { Authorization: authorization },
  });
  return res.status;
}

describe('htpasswd basic auth', () => {
  let reg: RegistryProcess;
  before(async () => {
    reg = await startRegistry({
      config: { auth: { htpasswd: { path: htpasswdFile, realm: 'test-realm' } } },
    });
  });
  after(() => reg.stop());

  test('no credentials: 401 UNAUTHORIZED with a Basic challenge and the version header', async () => {
    const res = await http(`${reg.url}/v2/`);
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Basic realm="test-realm"');
    assert.equal(res.headers['svc-distribution-api-version'], 'registry/2.0');
    assert.deepEqual(codes(res), ['UNAUTHORIZED']);
    assert.equal((await http(`${reg.url}/v2/x/tags/list`)).status, 401);
  });

  test('wrong password or unknown user: 401', async () => {
    assert.equal(
      (await http(`${reg.url}/v2/`, { headers: { Authorization: basic('alice', 'nope') } })).status,
      401,
    );
    assert.equal(
      (await http(`${reg.url}/v2/`, { headers: { Authorization: basic('carol', 'secret') } })).status,
      401,
    );
  });

  test('valid credentials: the API works', async () => {
    const auth = basic('alice', 'secret');
    assert.equal((await http(`${reg.url}/v2/`, { headers: { Authorization: auth } })).status, 200);
    assert.equal(await uploadBlob(reg.url, 'basic/a', auth), 201);
    assert.equal(
      (await http(`${reg.url}/v2/`, { headers: { Authorization: basic('bob', 'hunter2') } })).status,
      200,
    );
  });
});

describe('bearer token auth', () => {
  let reg: RegistryProcess;
  before(async () => {
    reg = await startRegistry({
      config: {
        auth: {
          token: {
            htpasswd: htpasswdFile,
            access: [
              { account: 'alice', name: '*', actions: ['*'] },
              { account: 'bob', name: 'shared/*', actions: ['pull'] },
              { account: '', name: 'public/*', actions: ['pull'] },
            ],
          },
        },
      },
    });
  });
  after(() => reg.stop());

  async function token(scopes: string[], authorization?: string): Promise<string> {
    const query = scopes.map((s) => `scope=${encodeURIComponent(s)}`).join('&');
    const res = await http(`${reg.url}/token?service=svc-registry&${query}`, {
      headers: authorization ? { Authorization: authorization } : {},
    });
    assert.equal(res.status, 200, res.body.toString());
    const body = res.json<{ token: string; access_token: string; expires_in: number }>();
    assert.equal(body.token, body.access_token);
    assert.ok(body.expires_in > 0);
    return `Bearer ${body.token}`;
  }

  test('no token: 401 with a Bearer challenge naming realm, service and scope', async () => {
    const base = await http(`${reg.url}/v2/`);
    assert.equal(base.status, 401);
    assert.equal(base.headers['www-authenticate'], `Bearer realm="${reg.url}/token",service="svc-registry"`);
    const res = await http(`${reg.url}/v2/team/x/blobs/uploads/`, { method: 'POST' });
    assert.equal(
      res.headers['www-authenticate'],
      `Bearer realm="${reg.url}/token",service="svc-registry",scope="repository:team/x:pull,push"`,
    );
  });

  test('the token endpoint refuses wrong credentials', async () => {
    const res = await http(`${reg.url}/token?scope=repository:team/x:pull`, {
      headers: { Authorization: basic('alice', 'bad') },
    });
    assert.equal(res.status, 401);
    assert.deepEqual(codes(res), ['UNAUTHORIZED']);
  });

  test('a token with push scope allows the push; another repository needs another token', async () => {
    const auth = await token(['repository:team/x:pull,push'], basic('alice', 'secret'));
    assert.equal((await http(`${reg.url}/v2/`, { headers: { Authorization: auth } })).status, 200);
    assert.equal(await uploadBlob(reg.url, 'team/x', auth), 201);
    const other = await http(`${reg.url}/v2/team/y/tags/list`, { headers: { Authorization: auth } });
    assert.equal(other.status, 401);
    assert.match(
      other.headers['www-authenticate'] as string,
      /scope="repository:team\/y:pull",error="insufficient_scope"/,
    );
  });

  test('an account the rules refuse gets a narrower token and then 403 DENIED', async () => {
    const auth = await token(['repository:shared/lib:pull,push'], basic('bob', 'hunter2'));
    assert.equal(
      (await http(`${reg.url}/v2/shared/lib/tags/list`, { headers: { Authorization: auth } })).status,
      404,
    );
    const res = await http(`${reg.url}/v2/shared/lib/blobs/uploads/`, {
      method: 'POST',
      headers: { Authorization: auth },
    });
    assert.equal(res.status, 403);
    assert.deepEqual(codes(res), ['DENIED']);
  });

  test('anonymous callers get only what the rules give anonymous', async () => {
    const auth = await token(['repository:public/x:pull,push']);
    const pull = await http(`${reg.url}/v2/public/x/manifests/latest`, { headers: { Authorization: auth } });
    assert.equal(pull.status, 404);
    assert.deepEqual(codes(pull), ['MANIFEST_UNKNOWN']);
    const push = await http(`${reg.url}/v2/public/x/blobs/uploads/`, {
      method: 'POST',
      headers: { Authorization: auth },
    });
    assert.equal(push.status, 401, 'anonymous may log in and try again');
  });

  test('the catalog needs registry:catalog:*; delete needs the delete action', async () => {
    const pullOnly = await token(['repository:team/x:pull'], basic('alice', 'secret'));
    assert.equal(
      (await http(`${reg.url}/v2/_catalog`, { headers: { Authorization: pullOnly } })).status,
      401,
    );
    const catalog = await token(['registry:catalog:*'], basic('alice', 'secret'));
    const res = await http(`${reg.url}/v2/_catalog`, { headers: { Authorization: catalog } });
    assert.equal(res.status, 200);
    const del = await http(`${reg.url}/v2/team/x/blobs/${sha256('auth blob')}`, {
      method: 'DELETE',
      headers: { Authorization: pullOnly },
    });
    assert.equal(del.status, 401);
    const deleter = await token(['repository:team/x:delete'], basic('alice', 'secret'));
    const ok = await http(`${reg.url}/v2/team/x/blobs/${sha256('auth blob')}`, {
      method: 'DELETE',
      headers: { Authorization: deleter },
    });
    assert.equal(ok.status, 202);
  });

  test('a tampered token is invalid', async () => {
    const auth = await token(['repository:team/x:pull'], basic('alice', 'secret'));
    const [h, claims, sig] = auth.slice(7).split('.');
    const forged = JSON.parse(Buffer.from(claims, 'base64url').toString());
    forged.access = [{ type: 'repository', name: 'other', actions: ['*'] }];
    const bad = `Bearer ${h}.${Buffer.from(JSON.stringify(forged)).toString('base64url')}.${sig}`;
    const res = await http(`${reg.url}/v2/other/tags/list`, { headers: { Authorization: bad } });
    assert.equal(res.status, 401);
    assert.match(res.headers['www-authenticate'] as string, /error="invalid_token"/);
  });
});
