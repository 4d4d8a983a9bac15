// Runs CNI plugins (Debian's containernetworking-plugins) by the CNI protocol: the command and
// the container in environment variables, the network's configuration on stdin, the result or
// a structured error on stdout.
import { spawn } from 'node:child_process';
import { SystemError } from '../../api/errors';

export const cniBinDir = '/usr/lib/cni';

export type CniCommand = 'ADD' | 'DEL' | 'CHECK';

/** One interface attached to one network namespace. */
export interface CniAttachment {
  containerId: string;
  netns: string;
  ifName: string;
}

export interface CniIp {
  interface?: number;
  address: string;
  gateway?: string;
}

export interface CniResult {
  cniVersion: string;
  interfaces?: Array<{ name: string; mac?: string; sandbox?: string }>;
  ips?: CniIp[];
  routes?: Array<{ dst: string; gw?: string }>;
  dns?: unknown;
}

export class CniError extends SystemError {
  constructor(
    readonly plugin: string,
    readonly code: number,
    message: string,
  ) {
    super(`CNI ${plugin}: ${message}`);
  }
}

/** Runs one plugin; its config is a plugin entry of a conflist with name and cniVersion added. */
export function runCniPlugin(
  command: CniCommand,
  at: CniAttachment,
  config: Record<string, unknown> & { type: string },
): Promise<CniResult | undefined> {
  return new Promise((resolve, reject) => {
    const child = spawn(`${cniBinDir}/${config.type}`, [], {
      env: {
        PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin',
        CNI_COMMAND: command,
        CNI_CONTAINERID: at.containerId,
        CNI_NETNS: at.netns,
        CNI_IFNAME: at.ifName,
        CNI_PATH: cniBinDir,
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => reject(new CniError(config.type, -1, e.message)));
    child.on('close', (code) => {
      if (code === 0) {
        resolve(out.trim() ? (JSON.parse(out) as CniResult) : undefined);
        return;
      }
      let message = err.trim() || out.trim() || `exit ${code}`;
      try {
        const parsed = JSON.parse(out) as { code?: number; msg?: string; details?: string };
        message = [parsed.msg, parsed.details].filter(Boolean).join(': ') || message;
      } catch {
        // Not the protocol's error object: the raw output says what went wrong.
      }
      reject(new CniError(config.type, code ?? -1, message));
    });
    child.stdin.end(JSON.stringify(config));
  });
}

/**
 * A network's plugin chain, as a conflist's `plugins`: ADD runs them in order, each given the
 * previous result; DEL runs them in reverse with the result ADD returned.
 */
export async function cniAdd(
  network: { name: string; cniVersion: string; plugins: Array<Record<string, unknown> & { type: string }> },
  at: CniAttachment,
  runtimeConfig: Record<string, unknown>,
): Promise<CniResult> {
  let prevResult: CniResult | undefined;
  const done: Array<Record<string, unknown> & { type: string }> = [];
  try {
    for (const plugin of network.plugins) {
      const config = withRuntime(network, plugin, runtimeConfig, prevResult);
      prevResult = (await runCniPlugin('ADD', at, config)) ?? prevResult;
      done.push(plugin);
    }
  } catch (err) {
    await cniDel({ ...network, plugins: done }, at, runtimeConfig, prevResult).catch(() => undefined);
    throw err;
  }
  if (!prevResult) throw new CniError('chain', -1, 'no result from the plugin chain');
  return prevResult;
}

export async function cniDel(
  network: { name: string; cniVersion: string; plugins: Array<Record<string, unknown> & { type: string }> },
  at: CniAttachment,
  runtimeConfig: Record<string, unknown>,
  prevResult: CniResult | undefined,
): Promise<void> {
  let first: unknown;
  for (const plugin of [...network.plugins].reverse()) {
    await runCniPlugin('DEL', at, withRuntime(network, plugin, runtimeConfig, prevResult)).catch((err) => {
      first ??= err;
    });
  }
  if (first) throw first;
}

function withRuntime(
  network: { name: string; cniVersion: string },
  plugin: Record<string, unknown> & { type: string },
  runtimeConfig: Record<string, unknown>,
  prevResult: CniResult | undefined,
): Record<string, unknown> & { type: string } {
  const caps = (plugin.capabilities ?? {}) as Record<string, boolean>;
  const runtime = Object.fromEntries(Object.entries(runtimeConfig).filter(([k]) => caps[k]));
  return {
    ...plugin,
    name: network.name,
    cniVersion: network.cniVersion,
    ...(Object.keys(runtime).length ? { runtimeConfig: runtime } : {}),
    ...(prevResult ? { prevResult } : {}),
  };
}
