// The real docker CLI (client only) against svcd's socket: import, images, tag, push, rmi, pull,
// save | load, login, as a user types them.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { destroySvcd, startSvcd, type SvcdInstance } from '../../../testing/svcd-harness';
import { busyboxRootfsTar } from '../../../testing/busybox-image';
import { startDistribution, type Distribution } from '../../../testing/distribution';

const docker = '/usr/local/bin/docker';
let svcd: SvcdInstance;
let registry: Distribution;
let secured: Distribution;
let scratch: string;

async function run(command: string): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)('sh', ['-c', command], {
      env: {
        ...process.env,
        DOCKER_HOST: `unix://${svcd.socket}`,
        DOCKER_CONFIG: path.join(scratch, 'docker-config'),
      },
      maxBuffer: 64 << 20,
    });
    return { code: 0, out: stdout + stderr };
  } catch (err) {
    const e = err as { code: number; stdout: string; stderr: string };
    return { code: e.code, out: e.stdout + e.stderr };
  }
}

async function ok(command: string): Promise<string> {
  const { code, out } = await run(command);
  assert.equal(code, 0, `${command}\n${out}`);
  return out;
}

before(async () => {
  scratch = await mkdtemp(path.join(tmpdir(), 'images-cli-'));
  [registry, secured, svcd] = await Promise.all([
    startDistribution(),
    startDistribution({ basic: { username: 'bob', password: 'pw' } }),
    startSvcd(),
  ]);
  await writeFile(path.join(scratch, 'rootfs.tar'), await busyboxRootfsTar());
});

after(async () => {
  await destroySvcd(svcd);
  await Promise.all([registry?.stop(), secured?.stop()]);
  await rm(scratch, { recursive: true, force: true });
});

test('the docker CLI is installed', { skip: !existsSync(docker) && 'no docker CLI' }, async () => {
  const out = await ok(`${docker} version --format '{{.Server.APIVersion}}'`);
  assert.equal(out.trim(), '1.41');
});

test('docker import, images, tag', async () => {
  const id = (await ok(`${docker} import -c 'CMD ["sh"]' -m hello ${scratch}/rootfs.tar bb:1`)).trim();
  assert.match(id, /^sha256:[a-f0-9]{64}$/);
  const images = await ok(`${docker} images --format '{{.Repository}}:{{.Tag}} {{.ID}}'`);
  assert.equal(images.trim(), `bb:1 ${id.slice(7, 19)}`);
  await ok(`${docker} tag bb:1 ${registry.host}/bb:1`);
  const inspect = await ok(
    `${docker} image inspect ${registry.host}/bb:1 --format '{{.Id}} {{.Config.Cmd}} {{.Comment}}'`,
  );
  assert.equal(inspect.trim(), `${id} [sh] hello`);
});

test('docker push, rmi, pull', async () => {
  const pushed = await ok(`${docker} push ${registry.host}/bb:1`);
  assert.match(pushed, /Pushed/);
  const digest = /1: digest: (sha256:[a-f0-9]{64}) size: \d+/.exec(pushed)?.[1];
  assert.ok(digest, pushed);
  const removed = await ok(`${docker} rmi ${registry.host}/bb:1 bb:1`);
  assert.match(removed, /Untagged: bb:1/);
  assert.match(removed, /Deleted: sha256:/);
  const pulled = await ok(`${docker} pull ${registry.host}/bb:1`);
  assert.match(pulled, /Pull complete/);
  assert.match(pulled, new RegExp(`Digest: ${digest}`));
  assert.match(pulled, new RegExp(`Status: Downloaded newer image for ${registry.host}/bb:1`));
  const digests = await ok(`${docker} images --digests --format '{{.Repository}} {{.Digest}}'`);
  assert.equal(digests.trim(), `${registry.host}/bb ${digest}`);
});

test('docker save | docker load round trip', async () => {
  const before = (await ok(`${docker} image inspect ${registry.host}/bb:1 --format '{{.Id}}'`)).trim();
  await ok(`${docker} save ${registry.host}/bb:1 -o ${scratch}/saved.tar`);
  await ok(`${docker} rmi ${registry.host}/bb:1`);
  assert.equal((await run(`${docker} image inspect ${registry.host}/bb:1`)).code, 1);
  assert.match(
    await ok(`${docker} load -i ${scratch}/saved.tar`),
    new RegExp(`Loaded image: ${registry.host}/bb:1`),
  );
  assert.match(await ok(`${docker} save ${registry.host}/bb:1 | ${docker} load`), /Loaded image: /);
  assert.equal((await ok(`${docker} image inspect ${registry.host}/bb:1 --format '{{.Id}}'`)).trim(), before);
});

test('docker login against htpasswd, and errors as the CLI shows them', async () => {
  assert.match(await ok(`${docker} login -u bob -p pw ${secured.host}`), /Login Succeeded/);
  const bad = await run(`${docker} login -u bob -p nope ${secured.host}`);
  assert.notEqual(bad.code, 0);
  const missing = await run(`${docker} rmi nosuch`);
  assert.equal(missing.code, 1);
  assert.match(missing.out, /No such image: nosuch/);
});
