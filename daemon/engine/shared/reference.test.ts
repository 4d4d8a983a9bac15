import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import {
  familiarName,
  familiarString,
  parseImageAndTag,
  parseReference,
  referenceString,
  registryHost,
  withDefaultTag,
} from './reference';
import { InvalidParameterError } from '../../api/errors';

const digest = `sha256:${'a'.repeat(64)}`;

describe('valid references', () => {
  const cases: [string, string, string][] = [
    // input, canonical (with default tag), familiar
    ['busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['busybox:1.36', 'docker.io/library/busybox:1.36', 'busybox:1.36'],
    ['library/busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['docker.io/busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['index.docker.io/library/busybox', 'docker.io/library/busybox:latest', 'busybox:latest'],
    ['user/app', 'docker.io/user/app:latest', 'user/app:latest'],
    ['docker.io/library/a/b', 'docker.io/library/a/b:latest', 'library/a/b:latest'],
    ['localhost/x', 'localhost/x:latest', 'localhost/x:latest'],
    ['localhost:5000/x', 'localhost:5000/x:latest', 'localhost:5000/x:latest'],
    ['127.0.0.1:41234/a/b:tag', '127.0.0.1:41234/a/b:tag', '127.0.0.1:41234/a/b:tag'],
    ['Registry.Example.com/x', 'Registry.Example.com/x:latest', 'Registry.Example.com/x:latest'],
    [`busybox@${digest}`, `docker.io/library/busybox@${digest}`, `busybox@${digest}`],
    [`host:5000/x:v1@${digest}`, `host:5000/x:v1@${digest}`, `host:5000/x:v1@${digest}`],
    ['[::1]:5000/x', '[::1]:5000/x:latest', '[::1]:5000/x:latest'],
    ['a__b/c-d.e/f---g', 'docker.io/a__b/c-d.e/f---g:latest', 'a__b/c-d.e/f---g:latest'],
  ];
  for (const [input, canonical, familiar] of cases) {
    test(input, () => {
      const ref = withDefaultTag(parseReference(input));
      assert.equal(referenceString(ref), canonical);
      assert.equal(familiarString(ref), familiar);
    });
  }
});

describe('invalid references', () => {
  const cases: [string, RegExp][] = [
    ['', /^invalid reference format$/],
    [`${'a'.repeat(60)}!`, /^invalid reference format$/],
    ['BusyBox', /^invalid reference format: repository name must be lowercase$/],
    ['localhost:5000/Upper', /^invalid reference format: repository name must be lowercase$/],
    ['a'.repeat(64), /cannot specify 64-byte hexadecimal strings/],
    ['busybox:', /^invalid reference format$/],
    ['-busybox', /^invalid reference format$/],
    ['busybox:tag with space', /^invalid reference format$/],
    ['a//b', /^invalid reference format$/],
    ['busybox:-tag', /^invalid reference format$/],
    [`busybox:${'t'.repeat(129)}`, /^invalid reference format$/],
    ['busybox@sha256:abc', /^invalid reference format$/],
    [`busybox@sha256:${'a'.repeat(63)}`, /^invalid checksum digest length$/],
    [`busybox@md5:${'a'.repeat(32)}`, /^unsupported digest algorithm$/],
    [`x/${'a'.repeat(260)}`, /^repository name must not be more than 255 characters$/],
  ];
  for (const [input, message] of cases) {
    test(JSON.stringify(input.slice(0, 40)), () => {
      assert.throws(
        () => parseReference(input),
        (err: unknown) => err instanceof InvalidParameterError && message.test(err.message),
      );
    });
  }
});

test('fromImage + tag as the engine receives them', () => {
  assert.equal(referenceString(parseImageAndTag('busybox', 'musl')), 'docker.io/library/busybox:musl');
  assert.equal(referenceString(parseImageAndTag('busybox:old', 'new')), 'docker.io/library/busybox:new');
  assert.equal(referenceString(parseImageAndTag('busybox', digest)), `docker.io/library/busybox@${digest}`);
  assert.equal(referenceString(parseImageAndTag('busybox')), 'docker.io/library/busybox');
  assert.throws(() => parseImageAndTag('busybox', 'bad tag'), /invalid tag format/);
});

test('familiar names and registry hosts', () => {
  assert.equal(familiarName(parseReference('docker.io/library/busybox')), 'busybox');
  assert.equal(
    familiarName(parseReference('127.0.0.1:5000/library/busybox')),
    '127.0.0.1:5000/library/busybox',
  );
  assert.equal(registryHost(parseReference('busybox').domain), 'registry-1.docker.io');
  assert.equal(registryHost(parseReference('localhost:5000/x').domain), 'localhost:5000');
});
