// Readiness probes: one GET that must answer 2xx within a short timeout. svcd listens on a unix
// socket, the registry on loopback TCP, so a probe names one or the other.
import http from 'node:http';

export type HealthCheck = { kind: 'unix'; socketPath: string; path: string } | { kind: 'http'; url: string };

export async function probe(check: HealthCheck, timeoutMs = 1000): Promise<boolean> {
  return (await probeFailure(check, timeoutMs)) === undefined;
}

/** undefined when the check answers 2xx; otherwise why not (the connect error's code, a status). */
export function probeFailure(check: HealthCheck, timeoutMs = 1000): Promise<string | undefined> {
  return new Promise((resolve) => {
    const target =
      check.kind === 'unix' ? { socketPath: check.socketPath, path: check.path } : new URL(check.url);
    const req = http.request({ ...targetOptions(target), method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      const status = res.statusCode ?? 0;
      resolve(status >= 200 && status < 300 ? undefined : `answered ${status} to ${describeProbe(check)}`);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', (err: NodeJS.ErrnoException) => resolve(err.code ?? err.message));
    req.end();
  });
}

function targetOptions(t: { socketPath: string; path: string } | URL): http.RequestOptions {
  if (t instanceof URL) return { host: t.hostname, port: t.port, path: t.pathname + t.search };
  return { socketPath: t.socketPath, path: t.path };
}

function describeProbe(check: HealthCheck): string {
  return check.kind === 'unix' ? `GET ${check.path}` : `GET ${new URL(check.url).pathname}`;
}

export function describeCheck(check: HealthCheck): string {
  // The address a client takes (DOCKER_HOST, a registry base URL), not the probe's path.
  return check.kind === 'unix' ? `unix://${check.socketPath}` : new URL(check.url).origin;
}
