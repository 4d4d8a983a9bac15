// Readiness probes: one GET that must answer 2xx within a short timeout. svcd listens on a unix
// socket, the registry on loopback TCP, so a probe names one or the other.
import http from 'node:http';

export type HealthCheck = { kind: 'unix'; socketPath: string; path: string } | { kind: 'http'; url: string };

export function probe(check: HealthCheck, timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const target =
      check.kind === 'unix' ? { socketPath: check.socketPath, path: check.path } : new URL(check.url);
    const req = http.request({ ...targetOptions(target), method: 'GET', timeout: timeoutMs }, (res) => {
      res.resume();
      resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}

function targetOptions(t: { socketPath: string; path: string } | URL): http.RequestOptions {
  if (t instanceof URL) return { host: t.hostname, port: t.port, path: t.pathname + t.search };
  return { socketPath: t.socketPath, path: t.path };
}

export function describeCheck(check: HealthCheck): string {
  // The address a client takes (DOCKER_HOST, a registry base URL), not the probe's path.
  return check.kind === 'unix' ? `unix://${check.socketPath}` : new URL(check.url).origin;
}
