// Container engines against svc-registry: podman and Docker Engine 20.10 (Debian's packages)
// push an image into it and pull it back, each with its own isolated storage. The pull goes to
// a second registry process on the same storage: replicas serve what any of them accepted.
import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { http } from '../testing/http-client';
import { writeBusyboxLayout, type OciImage } from './testing/oci-layout';
import { startRegistry, type RegistryProcess } from './testing/registry-process';
import { cleanupUnder } from '../testing/svcd-harness';
import { destroyDockerd, dockerdMissing, startDockerd, type DockerdPeer } from '../testing/dockerd-peer';

const has = (cmd: string, arg = '--version') => spawnSync(cmd, [arg]).status === 0;

function run(cmd: string, args: string[], env?: NodeJS.ProcessEnv) {
  const r = spawnSync(cmd, args, { encoding: 'utf8', timeout: 120_000, env: { ...process.env, ...env } });
  return { status: r.status, stdout: r.stdout, output: `${r.stdout}${r.stderr}` };
}

let scratch: string;
let image: OciImage;
let reg: RegistryProcess;
let replica: RegistryProcess;
/** The same image as a docker-save archive, named busybox:v1, for `load`. */
let archive: string;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-reg-engines-'));
  image = await writeBusyboxLayout(join(scratch, 'src'), 'v1', join(scratch, 'build'));
  reg = await startRegistry();
  replica = await startRegistry({ dataDir: reg.dataDir });
  archive = join(scratch, 'busybox.tar');
  const save = run('skopeo', [
    '--insecure-policy',
    'copy',
    `oci:${image.dir}:v1`,
    `docker-archive:${archive}:busybox:v1`,
  ]);
  assert.equal(save.status, 0, save.output);
});

after(async () => {
  await replica.stop();
  await reg.stop();
  await cleanupUnder(scratch);
});

describe('podman', { skip: !has('podman') && 'podman is not installed' }, () => {
  // Its own storage and run roots, vfs (no overlay mounts to leak), no system services.
  const podman = (...args: string[]) =>
    run('podman', [
      '--root',
      join(scratch, 'podman/root'),
      '--runroot',
      join(scratch, 'podman/run'),
      '--storage-driver',
      'vfs',
      '--cgroup-manager',
      'cgroupfs',
      '--events-backend',
      'none',
      ...args,
    ]);

  test('podman push into svc-registry, then pull it back from another replica', () => {
    const ref = `${reg.host}/podman/busybox:v1`;
    const pulled = `${replica.host}/podman/busybox:v1`;
    const load = podman('load', '-i', archive);
    assert.equal(load.status, 0, load.output);
    const id = podman('image', 'inspect', '--format', '{{.Id}}', 'busybox:v1').stdout.trim();
    assert.equal(podman('tag', 'busybox:v1', ref).status, 0);
    const push = podman('push', '--tls-verify=false', ref);
    assert.equal(push.status, 0, push.output);
    assert.equal(podman('rmi', '-a', '-f').status, 0);
    const pull = podman('pull', '--tls-verify=false', pulled);
    assert.equal(pull.status, 0, pull.output);
    const inspect = podman('image', 'inspect', '--format', '{{.Id}}', pulled);
    assert.equal(inspect.stdout.trim(), id);
  });
});

describe('Docker Engine 20.10', { skip: dockerdMissing() ?? false }, () => {
  let dockerd: DockerdPeer | undefined;
  const docker = (...args: string[]) => run('docker', args, { DOCKER_HOST: `unix://${dockerd!.socket}` });

  // A private dockerd on its own containerd; loopback registries are insecure to it by default.
  before(async () => {
    dockerd = await startDockerd();
  });

  after(() => destroyDockerd(dockerd));

  test('docker push into svc-registry, then docker pull it back from another replica', async () => {
    assert.equal(docker('load', '-i', archive).status, 0);
    const ref = `${reg.host}/docker/busybox:v1`;
    assert.equal(docker('tag', 'busybox:v1', ref).status, 0);
    const push = docker('push', ref);
    assert.equal(push.status, 0, push.output);
    const digest = /digest: (sha256:[0-9a-f]{64})/.exec(push.output)?.[1];
    assert.ok(digest, push.output);
    const head = await http(`${reg.url}/v2/docker/busybox/manifests/v1`, {
      method: 'HEAD',
      headers: { Accept: 'application/vnd.docker.distribution.manifest.v2+json' },
    });
    assert.equal(head.headers['docker-content-digest'], digest);
    const id = docker('image', 'inspect', '--format', '{{.Id}}', ref).stdout.trim();
    assert.equal(docker('rmi', ref, 'busybox:v1').status, 0);
    const pulled = `${replica.host}/docker/busybox:v1`;
    const pull = docker('pull', pulled);
    assert.equal(pull.status, 0, pull.output);
    assert.match(pull.output, new RegExp(`Digest: ${digest}`));
    assert.equal(docker('image', 'inspect', '--format', '{{.Id}}', pulled).stdout.trim(), id);
  });
});
