// rootlesskit's port API (api.sock in its state directory, --port-driver=builtin): its parent
// process, outside the user namespace, listens on the host's address and port and hands each
// connection to its child side, which dials childIP:childPort inside the namespace. Ports live
// as long as that rootlesskit, so as long as the svcd it runs.
import { request } from 'node:http';
import { join } from 'node:path';

export interface RootlessKitPortSpec {
  /** With the family: a binding on 0.0.0.0 listens on IPv4 only, as Docker's. */
  proto: `${'tcp' | 'udp'}${4 | 6}`;
  /** Empty for every host address. */
  parentIP: string;
  parentPort: number;
  childIP: string;
  childPort: number;
}

/** rootlesskit refused a port, with its own message (e.g. the bind error on the host). */
export class RootlessKitPortError extends Error {}

function call(socketPath: string, method: string, path: string, body?: unknown): Promise<string> {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        socketPath,
        method,
        path: `/v1${path}`,
        headers: payload ? { 'content-type': 'application/json' } : {},
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('error', reject);
        res.on('end', () => {
          if ((res.statusCode ?? 500) < 300) return resolve(text);
          let message = text.trim();
          try {
            message = (JSON.parse(text) as { message?: string }).message ?? message;
          } catch {
            // not JSON: the text as it came
          }
          reject(new RootlessKitPortError(message));
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export class RootlessKitPorts {
  private readonly socketPath: string;

  constructor(stateDir: string) {
    this.socketPath = join(stateDir, 'api.sock');
  }

  /** Listens on the host; answers the port's id, for remove. */
  async add(spec: RootlessKitPortSpec): Promise<number> {
    return (JSON.parse(await call(this.socketPath, 'POST', '/ports', spec)) as { id: number }).id;
  }

  async remove(id: number): Promise<void> {
    await call(this.socketPath, 'DELETE', `/ports/${id}`);
  }
}
