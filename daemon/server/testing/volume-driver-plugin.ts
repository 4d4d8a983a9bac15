// The plugin tests' volume driver: volume-driver.c built static with gcc into a rootfs of its
// own, with the config.json `docker plugin create` reads, as a directory and as the tar the CLI
// sends. Its volumes live under its propagated mount, /data, with the log of every call.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStaticC } from '../../testing/static-c';

export const driverSocket = 'svcvol.sock';

export interface DriverConfigOptions {
  description?: string;
  /** Written to rootfs/marker: plugins of distinct content (dockerd refuses content it has seen). */
  marker?: string;
}

/** config.json of the test driver, with a settable env, mount source and args. */
export function driverConfig(opts: DriverConfigOptions = {}): object {
  return {
    description: opts.description ?? 'svc test volume driver',
    documentation: 'daemon/server/testing/volume-driver.c',
    entrypoint: ['/driver', `/run/docker/plugins/${driverSocket}`],
    interface: { types: ['docker.volumedriver/1.0'], socket: driverSocket },
    propagatedMount: '/data',
    env: [{ name: 'DEBUG', description: 'more words', settable: ['value'], value: '0' }],
    args: { name: 'data', description: 'where volumes live', settable: ['value'], value: ['/data'] },
    mounts: [
      {
        name: 'scratch',
        description: 'a host directory, settable',
        settable: ['source'],
        source: '/tmp',
        destination: '/scratch',
        type: 'bind',
        options: ['rbind', 'ro'],
      },
    ],
    network: { type: 'host' },
    linux: { capabilities: ['CAP_SYS_ADMIN'] },
  };
}

/** A plugin directory (config.json and rootfs/driver) in a new temp dir; the caller removes it. */
export function buildDriverPlugin(opts: DriverConfigOptions = {}): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-plugin-'));
  mkdirSync(join(dir, 'rootfs'));
  buildStaticC('daemon/server/testing/volume-driver.c', join(dir, 'rootfs', 'driver'));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(driverConfig(opts)));
  if (opts.marker) writeFileSync(join(dir, 'rootfs', 'marker'), opts.marker);
  return dir;
}

/** The directory as the tar `docker plugin create` sends (config.json and rootfs/ at the top). */
export function pluginTar(dir: string, entries = ['config.json', 'rootfs']): Buffer {
  return execFileSync('tar', ['-C', dir, '-cf', '-', ...entries], { maxBuffer: 64 << 20 });
}
