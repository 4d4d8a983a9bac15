// Real clients against svc-registry: skopeo copies into and out of it, plain and with auth.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import bcrypt from 'bcryptjs';
import { MediaTypes } from '../lib/media-types';
import { http } from '../testing/http-client';
import { writeBusyboxLayout, type OciImage } from './testing/oci-layout';
import { startRegistry, type RegistryProcess } from './testing/registry-process';

const hasSkopeo = spawnSync('skopeo', ['--version']).status === 0;

function skopeo(...args: string[]) {
  const r = spawnSync('skopeo', ['--insecure-policy', ...args], { encoding: 'utf8', timeout: 90_000 });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

let scratch: string;
let image: OciImage;
before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-registry-clients-'));
  if (hasSkopeo) image = await writeBusyboxLayout(join(scratch, 'src'), 'v1', join(scratch, 'build'));
});
after(() => rm(scratch, { recursive: true, force: true }));

describe('skopeo', { skip: !hasSkopeo && 'skopeo is not installed' }, () => {
  let reg: RegistryProcess;
  let replica: RegistryProcess;
  before(async () => {
    reg = await startRegistry();
    replica = await startRegistry({ dataDir: reg.dataDir });
  });
  after(async () => {
    await replica.stop();
    await reg.stop();
  });

  test('copy an OCI layout into the registry and back out of another replica, byte for byte', async () => {
    const push = skopeo(
      'copy',
      '--dest-tls-verify=false',
      `oci:${image.dir}:v1`,
      `docker://${reg.host}/x/busybox:v1`,
    );
    assert.equal(push.status, 0, push.output);
    const tags = await http(`${reg.url}/v2/x/busybox/tags/list`);
    assert.deepEqual(tags.json(), { name: 'x/busybox', tags: ['v1'] });
    const head = await http(`${reg.url}/v2/x/busybox/manifests/v1`, {
      method: 'HEAD',
      headers: { Accept: MediaTypes.ociManifest },
    });
    assert.equal(head.headers['docker-content-digest'], image.manifestDigest);

    const out = join(scratch, 'out');
    const pull = skopeo(
      'copy',
      '--src-tls-verify=false',
      `docker://${replica.host}/x/busybox:v1`,
      `oci:${out}:v1`,
    );
    assert.equal(pull.status, 0, pull.output);
    for (const d of [image.layerDigest, image.configDigest, image.manifestDigest]) {
      assert.ok(existsSync(join(out, 'blobs/sha256', d.slice(7))), d);
    }
  });

  test('copy as Docker schema2, inspect, copy between repositories (mount), delete', async () => {
    const push = skopeo(
      'copy',
      '--format',
      'v2s2',
      '--dest-tls-verify=false',
      `oci:${image.dir}:v1`,
      `docker://${reg.host}/y/busybox:s2`,
    );
    assert.equal(push.status, 0, push.output);
    const raw = skopeo('inspect', '--raw', '--tls-verify=false', `docker://${reg.host}/y/busybox:s2`);
    assert.equal(raw.status, 0, raw.output);
    assert.equal(JSON.parse(raw.output).mediaType, MediaTypes.dockerManifest);
    const copy = skopeo(
      'copy',
      '--src-tls-verify=false',
      '--dest-tls-verify=false',
      `docker://${reg.host}/y/busybox:s2`,
      `docker://${reg.host}/z/copy:s2`,
    );
    assert.equal(copy.status, 0, copy.output);
    const inspect = skopeo('inspect', '--tls-verify=false', `docker://${reg.host}/z/copy:s2`);
    assert.equal(inspect.status, 0, inspect.output);
    assert.equal(JSON.parse(inspect.output).Layers.length, 1);
    const del = skopeo('delete', '--tls-verify=false', `docker://${reg.host}/z/copy:s2`);
    assert.equal(del.status, 0, del.output);
    assert.equal((await http(`${reg.url}/v2/z/copy/manifests/s2`)).status, 404);
  });
});

describe('skopeo with auth', { skip: !hasSkopeo && 'skopeo is not installed' }, () => {
  let htpasswd: string;
  before(async () => {
    htpasswd = join(scratch, 'htpasswd');
    await writeFile(htpasswd, `alice:${bcrypt.hashSync('secret', 5)}\n`);
  });

  for (const mode of ['htpasswd', 'token'] as const) {
    test(`${mode}: push needs credentials and works with them; pull back`, async () => {
      const auth = mode === 'htpasswd' ? { htpasswd: { path: htpasswd } } : { token: { htpasswd } };
      const reg = await startRegistry({ config: { auth } });
      try {
        const ref = `docker://${reg.host}/auth/${mode}:v1`;
        const anonymous = skopeo('copy', '--dest-tls-verify=false', `oci:${image.dir}:v1`, ref);
        assert.notEqual(anonymous.status, 0);
        const push = skopeo(
          'copy',
          '--dest-tls-verify=false',
          '--dest-creds',
          'alice:secret',
          `oci:${image.dir}:v1`,
          ref,
        );
        assert.equal(push.status, 0, push.output);
        const inspect = skopeo('inspect', '--tls-verify=false', '--creds', 'alice:secret', ref);
        assert.equal(inspect.status, 0, inspect.output);
        assert.equal(JSON.parse(inspect.output).Digest, image.manifestDigest);
      } finally {
        await reg.stop();
      }
    });
  }
});
