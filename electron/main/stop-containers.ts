// On quit, when the user asked for it: stop every running container through svcd's API before
// svcd itself is stopped.
import http from 'node:http';

function call(socketPath: string, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ socketPath, method, path, headers: { host: 'svcd' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Returns the ids it could not stop, with why; an unreachable engine has nothing to stop. */
export async function stopRunningContainers(socketPath: string, timeoutS = 10): Promise<string[]> {
  let list: { Id: string }[];
  try {
    const res = await call(socketPath, 'GET', '/containers/json');
    if (res.status !== 200) return [`list: HTTP ${res.status} ${res.body}`];
    list = JSON.parse(res.body) as { Id: string }[];
  } catch {
    return [];
  }
  const results = await Promise.all(
    list.map(async ({ Id }) => {
      const res = await call(socketPath, 'POST', `/containers/${Id}/stop?t=${timeoutS}`).catch(
        (e: Error) => ({
          status: 0,
          body: e.message,
        }),
      );
      return res.status === 204 || res.status === 304
        ? undefined
        : `${Id.slice(0, 12)}: ${res.status} ${res.body}`;
    }),
  );
  return results.filter((r): r is string => r !== undefined);
}
