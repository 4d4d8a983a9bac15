// The IPv4 subnets the host already routes, so no bridge network takes one of them.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** Each routed subnet with the device it goes through; `except` leaves that device's out. */
export async function routedSubnets(except?: string): Promise<string[]> {
  const { stdout } = await run('ip', ['-j', '-4', 'route', 'show', 'table', 'all']);
  return (JSON.parse(stdout) as Array<{ dst: string; dev?: string }>)
    .filter((r) => except === undefined || r.dev !== except)
    .map((r) => r.dst)
    .filter((dst) => dst !== 'default' && /^\d+\.\d+\.\d+\.\d+(\/\d+)?$/.test(dst))
    .map((dst) => (dst.includes('/') ? dst : `${dst}/32`))
    .filter((dst) => !dst.startsWith('127.') && !dst.endsWith('/32'));
}
