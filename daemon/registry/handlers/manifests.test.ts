import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { sha256 } from '../../lib/digest';
import { MediaTypes } from '../../lib/media-types';
import { http, type HttpResponse } from '../../testing/http-client';
import { descriptor, imageManifest, pushBlob, pushSmallImage, putManifest } from '../testing/registry-client';
import { startRegistry, type RegistryProcess } from '../testing/registry-process';
import { signedSchema1 } from '../testing/schema1';

let reg: RegistryProcess;
before(async () => {
  reg = await startRegistry();
});
after(() => reg.stop());

function errors(res: HttpResponse): { code: string; detail?: { digest?: string } }[] {
  return res.json<{ errors: { code: string; detail?: { digest?: string } }[] }>().errors;
}

const getManifest = (name: string, ref: string, accept?: string, method = 'GET') =>
  http(`${reg.url}/v2/${name}/manifests/${ref}`, { method, headers: accept ? { Accept: accept } : {} });

describe('manifests', () => {
  test('PUT schema2 by tag: 201 with Location and both digest headers; GET by tag and digest', async () => {
    const body = await pushSmallImage(reg.url, 'm/a', 'a');
    const res = await putManifest(reg.url, 'm/a', 'v1', body);
    assert.equal(res.status, 201, res.body.toString());
    const digest = sha256(body);
    assert.equal(res.headers['svc-content-digest'], digest);
    assert.equal(res.headers['docker-content-digest'], digest);
    assert.equal(res.headers.location, `${reg.url}/v2/m/a/manifests/${digest}`);
    for (const ref of ['v1', digest]) {
      const got = await getManifest('m/a', ref, MediaTypes.dockerManifest);
      assert.equal(got.status, 200);
      assert.ok(got.body.equals(body));
      assert.equal(got.headers['content-type'], MediaTypes.dockerManifest);
      assert.equal(got.headers['svc-content-digest'], digest);
      assert.equal(got.headers.etag, `"${digest}"`);
      assert.equal(got.headers['cache-control'], ref === digest ? 'max-age=31536000' : undefined);
    }
    const head = await getManifest('m/a', 'v1', MediaTypes.dockerManifest, 'HEAD');
    assert.equal(head.status, 200);
    assert.equal(head.headers['content-length'], String(body.length));
    assert.equal(head.headers['docker-content-digest'], digest);
    assert.equal(head.body.length, 0);
    const cached = await http(`${reg.url}/v2/m/a/manifests/v1`, {
      headers: { 'If-None-Match': `"${digest}"` },
    });
    assert.equal(cached.status, 304);
  });

  test('Accept: the vnd.svc twin is served with the twin type; an unaccepted type is not served', async () => {
    const body = await pushSmallImage(reg.url, 'm/b', 'b');
    assert.equal((await putManifest(reg.url, 'm/b', 'latest', body)).status, 201);
    const twin = 'application/vnd.svc.distribution.manifest.v2+json';
    const got = await getManifest('m/b', 'latest', twin);
    assert.equal(got.status, 200);
    assert.equal(got.headers['content-type'], twin);
    const refused = await getManifest('m/b', 'latest', MediaTypes.ociManifest);
    assert.equal(refused.status, 404);
    assert.equal(errors(refused)[0].code, 'MANIFEST_UNKNOWN');
    assert.equal((await getManifest('m/b', 'latest')).headers['content-type'], MediaTypes.dockerManifest);
  });

  test('PUT with the vnd.svc Content-Type and body type is accepted and served back as such', async () => {
    const twin = 'application/vnd.svc.distribution.manifest.v2+json';
    const base = JSON.parse((await pushSmallImage(reg.url, 'm/c', 'c')).toString());
    const body = Buffer.from(JSON.stringify({ ...base, mediaType: twin }));
    assert.equal((await putManifest(reg.url, 'm/c', 'svc', body, twin)).status, 201);
    const got = await getManifest('m/c', 'svc', `${twin}, ${MediaTypes.dockerManifest}`);
    assert.equal(got.headers['content-type'], twin);
    assert.equal(
      (await getManifest('m/c', 'svc', MediaTypes.dockerManifest)).headers['content-type'],
      MediaTypes.dockerManifest,
    );
  });

  test('OCI manifest and OCI index / manifest list; a missing child is MANIFEST_BLOB_UNKNOWN', async () => {
    const config = Buffer.from('{"os":"linux"}');
    const layer = Buffer.from('oci layer');
    await pushBlob(reg.url, 'm/d', config);
    await pushBlob(reg.url, 'm/d', layer);
    const oci = imageManifest(
      descriptor('application/vnd.oci.image.config.v1+json', config),
      [descriptor('application/vnd.oci.image.layer.v1.tar', layer)],
      MediaTypes.ociManifest,
    );
    assert.equal((await putManifest(reg.url, 'm/d', 'oci', oci, MediaTypes.ociManifest)).status, 201);
    const missing = sha256('no such manifest');
    for (const type of [MediaTypes.ociIndex, MediaTypes.dockerManifestList]) {
      const index = (children: string[]) =>
        JSON.stringify({
          schemaVersion: 2,
          mediaType: type,
          manifests: children.map((digest) => ({
            mediaType: MediaTypes.ociManifest,
            digest,
            size: 10,
            platform: { os: 'linux', architecture: 'amd64' },
          })),
        });
      const ok = await putManifest(reg.url, 'm/d', 'idx', index([sha256(oci)]), type);
      assert.equal(ok.status, 201, ok.body.toString());
      assert.equal((await getManifest('m/d', 'idx', type)).headers['content-type'], type);
      const bad = await putManifest(reg.url, 'm/d', 'idx2', index([sha256(oci), missing]), type);
      assert.equal(bad.status, 400);
      assert.deepEqual(
        errors(bad).map((e) => [e.code, e.detail?.digest]),
        [['MANIFEST_BLOB_UNKNOWN', missing]],
      );
    }
  });

  test('one BLOB_UNKNOWN per unknown layer, each with detail.digest', async () => {
    const a = Buffer.from('absent a');
    const b = Buffer.from('absent b');
    const config = Buffer.from('{"present":true}');
    await pushBlob(reg.url, 'm/e', config);
    const body = imageManifest(descriptor('application/vnd.docker.container.image.v1+json', config), [
      descriptor('application/vnd.docker.image.rootfs.diff.tar.gzip', a),
      descriptor('application/vnd.docker.image.rootfs.diff.tar.gzip', b),
    ]);
    const res = await putManifest(reg.url, 'm/e', 'x', body);
    assert.equal(res.status, 400);
    assert.deepEqual(
      errors(res).map((e) => [e.code, e.detail?.digest]),
      [
        ['BLOB_UNKNOWN', sha256(a)],
        ['BLOB_UNKNOWN', sha256(b)],
      ],
    );
    // A blob of another repository does not count: links are per repository.
    await pushBlob(reg.url, 'm/other', a);
    assert.equal(errors(await putManifest(reg.url, 'm/e', 'x', body)).length, 2);
  });

  test('a descriptor size that does not match the blob is SIZE_INVALID', async () => {
    const config = Buffer.from('{"sized":1}');
    await pushBlob(reg.url, 'm/s', config);
    const body = imageManifest(
      { ...descriptor('application/vnd.docker.container.image.v1+json', config), size: 3 },
      [],
    );
    const res = await putManifest(reg.url, 'm/s', 'x', body);
    assert.equal(res.status, 400);
    assert.equal(errors(res)[0].code, 'SIZE_INVALID');
  });

  test('MANIFEST_INVALID for bodies that are not manifests', async () => {
    for (const body of [
      'not json',
      '[]',
      '{"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json"}',
      '{"schemaVersion":3}',
    ]) {
      const res = await putManifest(reg.url, 'm/f', 'bad', body);
      assert.equal(res.status, 400, body);
      assert.equal(errors(res)[0].code, 'MANIFEST_INVALID', body);
    }
    const body = await pushSmallImage(reg.url, 'm/f', 'f');
    const res = await putManifest(reg.url, 'm/f', 'bad', body, MediaTypes.ociManifest);
    assert.equal(errors(res)[0].code, 'MANIFEST_INVALID', 'Content-Type contradicts the body');
  });

  test('PUT by digest must match the content (DIGEST_INVALID), and works when it does', async () => {
    const body = await pushSmallImage(reg.url, 'm/g', 'g');
    const wrong = await putManifest(reg.url, 'm/g', sha256('other'), body);
    assert.equal(wrong.status, 400);
    assert.equal(errors(wrong)[0].code, 'DIGEST_INVALID');
    assert.equal((await putManifest(reg.url, 'm/g', sha256(body), body)).status, 201);
    const tags = await http(`${reg.url}/v2/m/g/tags/list`);
    assert.equal(tags.status, 404, 'pushing by digest creates no tag');
  });

  test('signed schema1: verified, digest of the payload, name and tag must match the URL', async () => {
    const layer = Buffer.from('schema1 layer');
    const layerDigest = await pushBlob(reg.url, 'm/h', layer);
    const { body, payload } = signedSchema1('m/h', 'old', [layerDigest]);
    const res = await putManifest(reg.url, 'm/h', 'old', body, MediaTypes.dockerSchema1Signed);
    assert.equal(res.status, 201, res.body.toString());
    assert.equal(res.headers['svc-content-digest'], sha256(payload));
    const got = await getManifest('m/h', 'old', MediaTypes.dockerSchema1Signed);
    assert.ok(got.body.equals(body));
    assert.equal(got.headers['content-type'], MediaTypes.dockerSchema1Signed);

    const wrongTag = await putManifest(reg.url, 'm/h', 'other', body, MediaTypes.dockerSchema1Signed);
    assert.equal(errors(wrongTag)[0].code, 'TAG_INVALID');
    const wrongName = signedSchema1('m/elsewhere', 'old', [layerDigest]).body;
    assert.equal(
      errors(await putManifest(reg.url, 'm/h', 'old', wrongName, MediaTypes.dockerSchema1Signed))[0].code,
      'NAME_INVALID',
    );
    const tampered = Buffer.from(
      body.toString().replace('"architecture": "amd64"', '"architecture": "arm64"'),
    );
    const bad = await putManifest(reg.url, 'm/h', 'old', tampered, MediaTypes.dockerSchema1Signed);
    assert.equal(bad.status, 400);
    assert.equal(errors(bad)[0].code, 'MANIFEST_UNVERIFIED');
    const unknownLayer = signedSchema1('m/h', 'x', [sha256('nope')]).body;
    const missing = await putManifest(reg.url, 'm/h', 'x', unknownLayer, MediaTypes.dockerSchema1Signed);
    assert.deepEqual(
      errors(missing).map((e) => [e.code, e.detail?.digest]),
      [['BLOB_UNKNOWN', sha256('nope')]],
    );
  });

  test('DELETE by digest: 202, then 404; its tags disappear; DELETE by tag removes the tag alone', async () => {
    const body = await pushSmallImage(reg.url, 'm/i', 'i');
    await putManifest(reg.url, 'm/i', 't1', body);
    await putManifest(reg.url, 'm/i', 't2', body);
    await putManifest(reg.url, 'm/i', 't0', body);
    const other = await pushSmallImage(reg.url, 'm/i', 'i2');
    await putManifest(reg.url, 'm/i', 't3', other);
    const byTag = await http(`${reg.url}/v2/m/i/manifests/t0`, { method: 'DELETE' });
    assert.equal(byTag.status, 202);
    assert.equal((await getManifest('m/i', 't0')).status, 404, 'the tag is gone');
    assert.equal((await getManifest('m/i', 't1')).status, 200, 'the manifest and its other tags stay');
    const unknownTag = await http(`${reg.url}/v2/m/i/manifests/t0`, { method: 'DELETE' });
    assert.equal(unknownTag.status, 404);
    assert.equal(errors(unknownTag)[0].code, 'MANIFEST_UNKNOWN');
    const digest = sha256(body);
    assert.equal((await http(`${reg.url}/v2/m/i/manifests/${digest}`, { method: 'DELETE' })).status, 202);
    const again = await http(`${reg.url}/v2/m/i/manifests/${digest}`, { method: 'DELETE' });
    assert.equal(again.status, 404);
    assert.equal(errors(again)[0].code, 'MANIFEST_UNKNOWN');
    assert.equal((await getManifest('m/i', 't1')).status, 404);
    assert.equal((await getManifest('m/i', digest)).status, 404);
    assert.deepEqual((await http(`${reg.url}/v2/m/i/tags/list`)).json(), { name: 'm/i', tags: ['t3'] });
  });

  test('MANIFEST_UNKNOWN for unknown and impossible tags on GET and HEAD, DIGEST_INVALID', async () => {
    const res = await getManifest('m/none', 'latest');
    assert.equal(res.status, 404);
    assert.equal(errors(res)[0].code, 'MANIFEST_UNKNOWN');
    for (const tag of ['-bad', '.INVALID_MANIFEST_NAME']) {
      const get = await getManifest('m/none', tag);
      assert.equal(get.status, 404, tag);
      assert.equal(errors(get)[0].code, 'MANIFEST_UNKNOWN');
      const head = await http(`${reg.url}/v2/m/none/manifests/${tag}`, { method: 'HEAD' });
      assert.equal(head.status, 404, tag);
    }
    assert.equal(errors(await getManifest('m/none', 'sha256:12'))[0].code, 'DIGEST_INVALID');
  });

  test('OCI 1.1 referrers: OCI-Subject on PUT, the index of referrers, the artifactType filter, gone on delete', async () => {
    const subjectBody = await pushSmallImage(reg.url, 'm/ref', 'subject');
    await putManifest(reg.url, 'm/ref', 'v1', subjectBody);
    const subject = sha256(subjectBody);
    const empty = Buffer.from('{}');
    await pushBlob(reg.url, 'm/ref', empty);
    const emptyConfig = { mediaType: 'application/vnd.oci.empty.v1+json', digest: sha256(empty), size: 2 };
    const artifact = (artifactType: string, note: string): Buffer =>
      Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: MediaTypes.ociManifest,
          artifactType,
          config: emptyConfig,
          layers: [emptyConfig],
          subject: { mediaType: MediaTypes.dockerManifest, digest: subject, size: subjectBody.length },
          annotations: { note },
        }),
      );
    const signature = artifact('application/vnd.example.signature', 'sig');
    const sbom = artifact('application/vnd.example.sbom', 'sbom');
    for (const body of [signature, sbom]) {
      const res = await putManifest(reg.url, 'm/ref', sha256(body), body, MediaTypes.ociManifest);
      assert.equal(res.status, 201, res.body.toString());
      assert.equal(res.headers['oci-subject'], subject);
    }
    const all = await http(`${reg.url}/v2/m/ref/referrers/${subject}`);
    assert.equal(all.status, 200);
    assert.equal(all.headers['content-type'], MediaTypes.ociIndex);
    const index = all.json<{ manifests: { digest: string; artifactType: string; annotations: object }[] }>();
    assert.deepEqual(index.manifests.map((m) => m.digest).sort(), [sha256(signature), sha256(sbom)].sort());
    const sig = index.manifests.find((m) => m.digest === sha256(signature))!;
    assert.equal(sig.artifactType, 'application/vnd.example.signature');
    assert.deepEqual(sig.annotations, { note: 'sig' });
    const filtered = await http(
      `${reg.url}/v2/m/ref/referrers/${subject}?artifactType=application/vnd.example.sbom`,
    );
    assert.equal(filtered.headers['oci-filters-applied'], 'artifactType');
    assert.deepEqual(
      filtered.json<{ manifests: { digest: string }[] }>().manifests.map((m) => m.digest),
      [sha256(sbom)],
    );
    assert.equal(
      (await http(`${reg.url}/v2/m/ref/manifests/${sha256(sbom)}`, { method: 'DELETE' })).status,
      202,
    );
    const after = (await http(`${reg.url}/v2/m/ref/referrers/${subject}`)).json<{ manifests: unknown[] }>();
    assert.equal(after.manifests.length, 1, 'a deleted referrer is no longer listed');
    const none = await http(`${reg.url}/v2/m/ref/referrers/${sha256('nothing refers to this')}`);
    assert.equal(none.status, 200);
    assert.deepEqual(none.json(), { schemaVersion: 2, mediaType: MediaTypes.ociIndex, manifests: [] });
    assert.equal((await http(`${reg.url}/v2/m/ref/referrers/sha256:zz`)).status, 400);
  });
});
