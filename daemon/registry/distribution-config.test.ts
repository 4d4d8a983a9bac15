import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../lib/product';
import { parseConfig } from './config';
import { registryCommand } from './testing/registry-process';

const distributionYaml = `version: 0.1
log:
  level: info
storage:
  s3:
    accesskey: AK
    secretkey: SK
    region: us-east-1
    regionendpoint: http://127.0.0.1:7480
    bucket: images
    secure: false
    v4auth: true
    chunksize: 5242880
    rootdirectory: /reg
  delete:
    enabled: true
  redirect:
    disable: true
  maintenance:
    uploadpurging:
      enabled: true
      age: 48h
      interval: 1h30m
http:
  addr: :5000
  secret: x
`;

test("Distribution's YAML maps onto the registry's configuration", () => {
  const config = parseConfig(distributionYaml, 'c.yml');
  assert.deepEqual(
    { ...config.storage?.s3 },
    {
      accessKey: 'AK',
      secretKey: 'SK',
      region: 'us-east-1',
      regionEndpoint: 'http://127.0.0.1:7480',
      bucket: 'images',
      secure: false,
      skipVerify: false,
      rootDirectory: 'reg/docker/registry/v2',
      chunkSize: 5 << 20,
      multipartCopyThresholdSize: 32 << 20,
      multipartCopyChunkSize: 32 << 20,
      multipartCopyMaxConcurrency: 100,
      storageClass: undefined,
    },
  );
  assert.equal(config.deleteEnabled, true);
  assert.equal(config.redirect, false);
  assert.deepEqual(config.uploads, { expireSeconds: 48 * 3600, purgeIntervalSeconds: 5400 });
  assert.equal(config.addr, ':5000');
  // Distribution's defaults: delete off, redirects on.
  const bare = parseConfig('version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: /srv/r\n');
  assert.equal(bare.deleteEnabled, false);
  assert.equal(bare.redirect, true);
  assert.equal(bare.storage?.filesystem?.rootDirectory, '/srv/r/docker/registry/v2');
});

test('REGISTRY_* variables override, as Distribution reads them', () => {
  const config = parseConfig(distributionYaml, 'c.yml', {
    REGISTRY_STORAGE_S3_BUCKET: 'other',
    REGISTRY_STORAGE_DELETE_ENABLED: 'false',
    REGISTRY_HTTP_ADDR: '127.0.0.1:5001',
    REGISTRY_NOT_A_KEY: 'ignored',
  });
  assert.equal(config.storage?.s3?.bucket, 'other');
  assert.equal(config.deleteEnabled, false);
  assert.equal(config.addr, '127.0.0.1:5001');
});

test('auth.token names an outside token server; all four of its keys are needed', () => {
  const token = [
    'auth:',
    '  token:',
    '    realm: https://auth.example/token',
    '    service: registry.example',
    '    issuer: auth.example',
    '    rootcertbundle: /etc/registry/token.pem',
  ].join('\n');
  const config = parseConfig(`${distributionYaml}${token}\n`, 'c.yml');
  assert.deepEqual(config.auth, {
    token: {
      realm: 'https://auth.example/token',
      service: 'registry.example',
      issuer: 'auth.example',
      rootCertBundle: '/etc/registry/token.pem',
    },
  });
  assert.throws(
    () => parseConfig(`${distributionYaml}${token.replace(/\n.*issuer.*$/m, '')}\n`, 'c.yml'),
    /auth\.token needs issuer/,
  );
});

test('unknown keys are named; unsupported choices are refused with the reason', () => {
  const unknown = `${distributionYaml}  prefix: /x\nnotifications:\n  endpoints: []\n`;
  assert.throws(
    () => parseConfig(unknown, 'c.yml'),
    /unsupported configuration keys: http\.prefix, notifications/,
  );
  assert.throws(
    () => parseConfig(distributionYaml.replace('v4auth: true', 'v4auth: false')),
    /only V4 signatures/,
  );
  assert.throws(
    () => parseConfig(distributionYaml.replace('chunksize: 5242880', 'chunksize: 1000')),
    /at least 5 MiB/,
  );
  assert.throws(() => parseConfig(distributionYaml.replace('age: 48h', 'age: soon')), /a duration/);
  assert.throws(() => parseConfig('version: 0.2\n'), /version must be 0\.1/);
});

test('serve --config with a key Distribution has and we do not: the start stops, naming it', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'svc-registry-dconfig-'));
  try {
    const bad = join(dir, 'bad.yml');
    await writeFile(bad, `version: 0.1\nstorage:\n  filesystem:\n    rootdirectory: ${dir}\n  swift: {}\n`);
    const r = spawnSync(process.execPath, registryCommand(['serve', '--config', bad]), {
      cwd: repoRoot(),
      encoding: 'utf8',
      timeout: 30_000,
    });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /unsupported configuration keys: storage\.swift/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
