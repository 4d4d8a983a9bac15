// HTTP GETs from the host to a published port, with busybox nc (as a user would with curl),
// each bounded in time.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { pollUntil } from './poll';

const run = promisify(execFile);

/** A busybox httpd serving `text` on port 80 (a container's command). */
export const webCommand = (text: string) =>
  `mkdir -p /www; echo ${text} > /www/index.html; httpd -f -p 80 -h /www`;

/** One HTTP GET from the host, bounded to 5 s: the body's last line, or '' if nothing answered. */
export async function httpGet(host: string, port: string): Promise<string> {
  const { stdout } = await run(
    'sh',
    ['-c', `printf 'GET / HTTP/1.0\\r\\n\\r\\n' | timeout 5 busybox nc ${host} ${port}`],
    {
      encoding: 'utf8',
    },
  ).catch((err: { stdout?: string }) => ({ stdout: err.stdout ?? '' }));
  return stdout.trim().split('\n').pop() ?? '';
}

/** The first answer of a server just started (its httpd may not listen yet), bounded by the poll. */
export function served(host: string, port: string): Promise<string> {
  return pollUntil(`an answer on ${host}:${port}`, async () => (await httpGet(host, port)) || undefined);
}
