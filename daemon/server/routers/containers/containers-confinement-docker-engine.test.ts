// What a process in a container sees of its confinement, compared with Docker Engine 20.10 on
// this machine: no-new-privileges, capabilities and seccomp mode (/proc/self/status), masked and
// read-only paths and the default /proc, /sys and /dev mounts (/proc/self/mountinfo), the device
// cgroup rules (devices.list) and the device nodes of /dev, for the same `docker run` options.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { dockerdMissing } from '../../../testing/dockerd-peer';
import { useDockerCliOn, type DockerCli } from '../../../testing/docker-cli';
import { useEnginePair } from '../../testing/engine-pair';

const SCRIPT = `
echo '== status'; grep -E '^(NoNewPrivs|Cap|Seccomp)' /proc/self/status
echo '== mounts'; cat /proc/self/mountinfo
echo '== device rules'; cat /sys/fs/cgroup/devices/devices.list
echo '== /dev'; for f in /dev/* /dev/pts/*; do stat -c '%N %F %a %t:%T' "$f"; done
`;

const CASES: Record<string, string[]> = {
  default: [],
  'no-new-privileges': ['--security-opt', 'no-new-privileges'],
  capabilities: ['--cap-add', 'NET_ADMIN', '--cap-add', 'SYS_PTRACE', '--cap-drop', 'CHOWN'],
  devices: ['--device', '/dev/null:/dev/xnull', '--device-cgroup-rule', 'c 42:* rmw'],
  'read-only': ['--read-only'],
};

/**
 * A mountinfo line without what names this run rather than the mount: IDs, device numbers and the
 * path inside the source (an engine's own directory for the /etc files). Kept: mount point,
 * options, propagation, type, source, superblock options; for the root, only whether it is
 * read-only: it is each engine's storage (containerd's overlayfs snapshotter, dockerd's overlay2,
 * with their own superblock options and host-side propagation), not confinement.
 */
function mountLine(line: string): string {
  const [before, after] = line.split(' - ');
  const [, , , , mountPoint, options, ...optional] = before.split(' ');
  const [type, source, superOptions] = after.split(' ');
  if (mountPoint === '/') return [mountPoint, options, '-', type].join(' ');
  const propagation = optional.map((o) => o.replace(/:\d+$/, ''));
  return [mountPoint, options, ...propagation, '-', type, source, superOptions].join(' ');
}

type Sections = Record<string, string[]>;

async function confinement(cli: DockerCli, opts: string[]): Promise<Sections> {
  const out = await cli.docker('run', '--rm', '--network', 'none', ...opts, 'busybox', 'sh', '-c', SCRIPT);
  const sections: Sections = {};
  let current: string[] = [];
  for (const line of out.split('\n')) {
    const heading = /^== (.*)$/.exec(line);
    if (heading) sections[heading[1]] = current = [];
    else current.push(line);
  }
  sections.mounts = sections.mounts.map(mountLine);
  return sections;
}

describe('confinement as Docker Engine 20.10 sets it up', { skip: dockerdMissing() }, () => {
  const engines = useEnginePair();
  const svcdCli = useDockerCliOn(() => engines().svcd.socket);
  const dockerdCli = useDockerCliOn(() => engines().dockerd.socket);

  for (const [name, opts] of Object.entries(CASES)) {
    test(`${name}: the same status, mounts, device rules and /dev`, async () => {
      const [ours, theirs] = await Promise.all([confinement(svcdCli, opts), confinement(dockerdCli, opts)]);
      for (const section of Object.keys(theirs)) {
        assert.ok(theirs[section].length > 0, `dockerd shows some ${section}`);
        assert.deepEqual(ours[section], theirs[section], section);
      }
    });
  }
});
