// Installs what the two commands need and is missing: npm packages, and (as root) the Debian
// packages svcd and the tests run on. Plain Node with no dependencies, because it runs before
// node_modules exists. Quick and silent when everything is already there. `--list` prints the
// Debian packages and what each is for (the README points here: this list is the only one).
// As a normal user nothing is installed: what the app's rootless svcd still needs is printed as
// the commands root has to run; `--check` does only that, and changes nothing.
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  accessSync,
  chmodSync,
  constants,
  existsSync,
  lstatSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');
const checkOnly = process.argv.includes('--check');

// Debian packages by purpose; each is checked with dpkg-query, installed only when absent.
const debianPackageUses = {
  containerd: "svcd's private containerd",
  runc: 'the OCI runtime (crun refuses hybrid cgroups here)',
  'containernetworking-plugins': 'bridge, host-local, portmap, firewall, loopback',
  iptables: 'used by the CNI bridge and portmap plugins (ip6tables on IPv6 networks)',
  'busybox-static': 'test images are built FROM scratch + this binary',
  tini: 'HostConfig.Init',
  openssl: "the swarm's CA certificate, made at swarm init",
  chromium: 'renderer e2e through Playwright',
  'docker-registry': 'Distribution 2.8, the peer the registry client is tested against',
  skopeo: 'a real registry client for the registry tests',
  'apache2-utils': 'htpasswd for auth tests',
  podman: 'a real engine pushing to and pulling from svc-registry, and an added engine in the desktop e2e',
  'docker.io': 'Docker Engine 20.10: a real client of svc-registry, and the bench peer',
  'docker-compose': 'docker-compose 1.29: a real client of svcd (volumes, networks, build)',
  'python3-docker': 'docker-py, a real Engine API client in the test suite',
  'openssh-server': 'sshd the ssh:// engine e2e starts on loopback (the system ssh client dials through it)',
  gcc: "builds the static syscall probe of the seccomp comparison with Docker, and the plugin tests' volume driver",
  'libc6-dev': 'the C library that probe is linked with',
  uidmap: 'rootless svcd: newuidmap/newgidmap map the subordinate IDs of /etc/subuid, /etc/subgid',
  rootlesskit: "rootless svcd: the user, mount and network namespace and the published ports' driver",
  slirp4netns: "rootless svcd: the namespace's link to the outside",
  shellcheck: "checks the deb package's maintainer scripts (packaging/linux)",
  'ceph-mon': "the monitor of the single-node Ceph cluster svc-registry's S3 suites start",
  'ceph-osd': "that cluster's object store daemon (memstore)",
  radosgw: 'the RADOS Gateway: the S3 endpoint svc-registry is tested on',
  'ceph-common': 'ceph, monmaptool, ceph-authtool and radosgw-admin that set the cluster up',
};
const debianPackages = Object.keys(debianPackageUses);
// What `npm start` needs as a normal user (its own rootless svcd); the rest is for the tests.
const appPackages = [
  'containerd',
  'runc',
  'containernetworking-plugins',
  'iptables',
  'tini',
  'uidmap',
  'rootlesskit',
  'slirp4netns',
];

const isRoot = !process.getuid || process.getuid() === 0;

function log(msg) {
  if (!quiet) process.stdout.write(`setup: ${msg}\n`);
}

function missingDebian(names) {
  const r = spawnSync('dpkg-query', ['-W', '-f=${Package} ${db:Status-Abbrev}\n', ...names], {
    encoding: 'utf8',
  });
  const installed = new Set(
    (r.stdout || '')
      .split('\n')
      .filter((l) => /\sii\s*$/.test(l))
      .map((l) => l.split(' ')[0]),
  );
  return names.filter((n) => !installed.has(n));
}

function ensureDebian() {
  if (process.platform !== 'linux' || !existsSync('/usr/bin/dpkg-query')) {
    log('not a Debian system: install containerd, runc, CNI plugins, iptables and chromium yourself');
    return;
  }
  const missing = missingDebian(debianPackages);
  if (missing.length === 0) return;
  if (!isRoot) return;
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  // Debian starts a system containerd/dockerd where it can; ours never uses them, but a
  // system dockerd would create docker0 routes the tests avoid, and the e2e starts an sshd of
  // its own on loopback rather than listen on port 22 of every address. Stop what was just started.
  for (const svc of ['docker', 'containerd', 'docker-registry', 'ssh']) {
    spawnSync('systemctl', ['stop', svc], { stdio: 'ignore' });
  }
}

// rootlesskit's slirp4netns opens /dev/net/tun as the user. Debian desktops have it 0666; some
// machines (these test hosts among them) have it 0600, which leaves rootless svcd without a network.
function ensureTunForUsers() {
  if (!existsSync('/dev/net/tun') || (statSync('/dev/net/tun').mode & 0o666) === 0o666) return;
  chmodSync('/dev/net/tun', 0o666);
  log('made /dev/net/tun usable by every user (mode 0666, as on a Debian desktop) for rootless svcd');
}

/** The ranges of /etc/subuid or /etc/subgid: "name:start:count" (or "uid:start:count") lines. */
function subordinateRanges(file) {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.includes(':'))
    .map((line) => {
      const [who, start, count] = line.split(':');
      return { who, start: Number(start), count: Number(count) };
    });
}

/** The range to suggest: 65536 IDs after every range already given out, as useradd does. */
function freeSubordinateRange(ranges) {
  const start = Math.max(100000, ...ranges.map((r) => r.start + r.count));
  return `${start}-${start + 65535}`;
}

/** A sysctl that turns unprivileged user namespaces off (set by some kernels and admins). */
function userNamespacesOff() {
  const read = (file) => (existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined);
  if (read('/proc/sys/kernel/unprivileged_userns_clone') === '0')
    return 'sysctl -w kernel.unprivileged_userns_clone=1   # user namespaces are off for users';
  if (read('/proc/sys/user/max_user_namespaces') === '0')
    return 'sysctl -w user.max_user_namespaces=28633   # no user namespace may be made';
  return undefined;
}

/** /dev/net/tun, which slirp4netns opens as the user: the command that makes it usable, if any. */
function tunCommand() {
  if (!existsSync('/dev/net/tun')) return 'modprobe tun   # no /dev/net/tun: slirp4netns needs it';
  try {
    accessSync('/dev/net/tun', constants.R_OK | constants.W_OK);
    return undefined;
  } catch {
    return 'chmod 0666 /dev/net/tun   # slirp4netns opens it as you (persist it with a udev rule)';
  }
}

// As a normal user nothing can be installed: say exactly what rootless svcd still needs and the
// commands root has to run for it, then stop.
function reportRootlessNeeds() {
  const user = userInfo();
  const commands = [];
  const missing = existsSync('/usr/bin/dpkg-query') ? missingDebian(appPackages) : [];
  if (missing.length > 0) {
    commands.push(`apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`);
  }
  for (const file of ['/etc/subuid', '/etc/subgid']) {
    const ranges = subordinateRanges(file);
    const own = (r) => (r.who === user.username || r.who === String(user.uid)) && r.count >= 65536;
    if (!ranges.some(own)) {
      const flag = file === '/etc/subuid' ? '--add-subuids' : '--add-subgids';
      const range = freeSubordinateRange(ranges);
      commands.push(`usermod ${flag} ${range} ${user.username}   # no range of 65536 IDs in ${file}`);
    }
  }
  for (const cmd of [userNamespacesOff(), tunCommand()]) if (cmd) commands.push(cmd);
  if (commands.length === 0) {
    if (checkOnly) process.stdout.write('setup: rootless svcd has what it needs here\n');
    return;
  }
  process.stderr.write(`setup: rootless svcd needs what only root can set up. Run as root:\n`);
  for (const cmd of commands) process.stderr.write(`  ${cmd}\n`);
  process.exit(1);
}

function ensureNpm() {
  const lock = join(root, 'package-lock.json');
  const stampFile = join(root, 'node_modules', '.svc-setup-stamp');
  const stamp = () => {
    const hash = createHash('sha256').update(readFileSync(join(root, 'package.json')));
    if (existsSync(lock)) hash.update(readFileSync(lock));
    return hash.digest('hex');
  };
  if (existsSync(stampFile) && readFileSync(stampFile, 'utf8') === stamp()) return;
  // A worktree whose node_modules links to another checkout's: npm ci would empty that tree
  // through the link, under whoever else is using it. Its owner installs it.
  if (lstatSync(join(root, 'node_modules'), { throwIfNoEntry: false })?.isSymbolicLink()) {
    log('node_modules is a link to another checkout: not reinstalling it from here');
    return;
  }
  log('installing npm packages');
  // Electron's own binary cannot be downloaded here; its types and launcher still install.
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
  const args = existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  execFileSync('npm', args, { cwd: root, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'], env });
  writeFileSync(stampFile, stamp());
}

if (process.argv.includes('--list')) {
  for (const [name, use] of Object.entries(debianPackageUses)) process.stdout.write(`${name}\t${use}\n`);
} else if (checkOnly) {
  if (isRoot) process.stdout.write('setup: --check is for a normal user (as root, setup installs)\n');
  else reportRootlessNeeds();
} else {
  ensureDebian();
  if (isRoot) ensureTunForUsers();
  else reportRootlessNeeds();
  ensureNpm();
}
