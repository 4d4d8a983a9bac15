// A throwaway ssh host on loopback for the ssh:// engine: Debian's sshd on a random 127.0.0.1
// port with a host key and one authorized client key made on the spot, whose sessions get
// DOCKER_HOST, so the remote `docker system dial-stdio` reaches the engine under test. The app
// runs the system ssh client through a wrapper first in its PATH that adds a config naming that
// key and that host's key: the user's own ~/.ssh is neither read nor written.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { pollUntil } from '../daemon/testing/poll';
import { freePort } from './web-mode-fixture';

const run = promisify(execFile);
const SSHD = '/usr/sbin/sshd';

export interface SshHost {
  port: number;
  /** Variables for the app's environment: PATH with the ssh wrapper first. */
  clientEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Why there is no ssh host to test against, or undefined when there can be. */
export function sshdMissing(): string | undefined {
  if (!existsSync(SSHD)) return `${SSHD} not installed (Debian package openssh-server)`;
  if (!existsSync('/usr/bin/ssh')) return '/usr/bin/ssh not installed (Debian package openssh-client)';
  return undefined;
}

/** sshd's session processes: children of the listener, each leading a session of its own. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) found.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return found;
}

export async function startSshHost(dockerHost: string): Promise<SshHost> {
  const dir = await mkdtemp(join(tmpdir(), 'e2e-ssh-host-'));
  let sshd: ChildProcess | undefined;
  try {
    const hostKey = join(dir, 'host_ed25519');
    const clientKey = join(dir, 'client_ed25519');
    for (const key of [hostKey, clientKey])
      await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'svc-e2e', '-f', key]);
    await writeFile(join(dir, 'authorized_keys'), await readFile(`${clientKey}.pub`));
    const port = await freePort();
    const config = join(dir, 'sshd_config');
    await writeFile(
      config,
      [
        `Port ${port}`,
        'ListenAddress 127.0.0.1',
        `HostKey ${hostKey}`,
        `PidFile ${join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        'UsePAM no',
        // The temp directory is the test's, not a home directory sshd would check the modes of.
        'StrictModes no',
        `SetEnv DOCKER_HOST=${dockerHost}`,
        '',
      ].join('\n'),
    );
    // sshd's privilege separation directory, which the package's service creates at start.
    await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
    const child = spawn(SSHD, ['-D', '-e', '-f', config], { stdio: ['ignore', 'ignore', 'pipe'] });
    sshd = child;
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
    await pollUntil(
      'sshd listening',
      async () => {
        if (child.exitCode !== null) throw new Error(`sshd exited ${child.exitCode}: ${stderr}`);
        return new Promise<true | undefined>((resolve) => {
          const s = net.connect({ host: '127.0.0.1', port }, () => (s.destroy(), resolve(true)));
          s.on('error', () => resolve(undefined));
        });
      },
      { timeoutMs: 10_000, intervalMs: 100 },
    );

    const hostPub = (await readFile(`${hostKey}.pub`, 'utf8')).trim();
    await writeFile(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`);
    await writeFile(
      join(dir, 'ssh_config'),
      [
        'Host 127.0.0.1',
        `  IdentityFile ${clientKey}`,
        '  IdentitiesOnly yes',
        `  UserKnownHostsFile ${join(dir, 'known_hosts')}`,
        '  StrictHostKeyChecking yes',
        '',
      ].join('\n'),
    );
    const bin = join(dir, 'bin');
    await mkdir(bin);
    await writeFile(join(bin, 'ssh'), `#!/bin/sh\nexec /usr/bin/ssh -F ${join(dir, 'ssh_config')} "$@"\n`);
    await chmod(join(bin, 'ssh'), 0o755);

    return {
      port,
      clientEnv: { PATH: `${bin}:${process.env.PATH ?? '/usr/bin:/bin'}` },
      async stop() {
        // Sessions left by clients that are gone end with the listener.
        const sessions = childrenOf(child.pid!);
        if (child.exitCode === null) {
          const exited = new Promise((r) => child.once('exit', r));
          child.kill('SIGTERM');
          await exited;
        }
        for (const pid of sessions) {
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            // Already ended.
          }
        }
        await rm(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    sshd?.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
}
