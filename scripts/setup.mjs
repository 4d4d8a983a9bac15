// Installs what the two commands need and is missing: npm packages, and (as root) the Debian
// packages svcd and the tests run on. Plain Node with no dependencies, because it runs before
// node_modules exists. Quick and silent when everything is already there. `--list` prints the
// Debian packages and what each is for (the README points here: this list is the only one).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const quiet = process.argv.includes('--quiet');

// Debian packages by purpose; each is checked with dpkg-query, installed only when absent.
const debianPackageUses = {
  containerd: "svcd's private containerd",
  runc: 'the OCI runtime (crun refuses hybrid cgroups here)',
  'containernetworking-plugins': 'bridge, host-local, portmap, firewall, loopback',
  iptables: 'used by the CNI bridge and portmap plugins',
  'busybox-static': 'test images are built FROM scratch + this binary',
  tini: 'HostConfig.Init',
  chromium: 'renderer e2e through Playwright',
  'docker-registry': 'Distribution 2.8, the peer the registry client is tested against',
  skopeo: 'a real registry client for the registry tests',
  'apache2-utils': 'htpasswd for auth tests',
  podman: 'a real engine pushing to and pulling from svc-registry',
  'docker.io': 'Docker Engine 20.10: a real client of svc-registry, and the bench peer',
  'docker-compose': 'docker-compose 1.29: a real client of svcd (volumes, networks, build)',
  'python3-docker': 'docker-py, a real Engine API client in the test suite',
  gcc: 'builds the static syscall probe of the seccomp comparison with Docker',
  'libc6-dev': 'the C library that probe is linked with',
};
const debianPackages = Object.keys(debianPackageUses);

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
  const cmd = `apt-get update && apt-get install -y --no-install-recommends ${missing.join(' ')}`;
  if (process.getuid && process.getuid() !== 0) {
    process.stderr.write(`setup: missing Debian packages: ${missing.join(' ')}\nRun as root:\n  ${cmd}\n`);
    process.exit(1);
  }
  log(`installing Debian packages: ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...missing], {
    stdio: ['ignore', 'ignore', 'inherit'],
    env,
  });
  // Debian starts a system containerd/dockerd where it can; ours never uses them, but a
  // system dockerd would create docker0 routes the tests avoid. Stop what was just started.
  for (const svc of ['docker', 'containerd', 'docker-registry']) {
    spawnSync('systemctl', ['stop', svc], { stdio: 'ignore' });
  }
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
  log('installing npm packages');
  // Electron's own binary cannot be downloaded here; its types and launcher still install.
  const env = { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '1' };
  const args = existsSync(lock) ? ['ci', '--no-audit', '--no-fund'] : ['install', '--no-audit', '--no-fund'];
  execFileSync('npm', args, { cwd: root, stdio: ['ignore', quiet ? 'ignore' : 'inherit', 'inherit'], env });
  writeFileSync(stampFile, stamp());
}

if (process.argv.includes('--list')) {
  for (const [name, use] of Object.entries(debianPackageUses)) process.stdout.write(`${name}\t${use}\n`);
} else {
  ensureDebian();
  ensureNpm();
}
