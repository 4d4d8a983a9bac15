// Starts Distribution 2.8 (`docker-registry`) on a configuration file of the caller's, with
// REGISTRY_* overrides in its environment and the address picked here (a free loopback port,
// given as REGISTRY_HTTP_ADDR): the peer that svc-registry shares an S3 bucket with in the
// suites and the bench. Stopped by its pid.
import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from './free-port';

export interface DistributionProcess {
  url: string;
  host: string;
  child: ChildProcess;
  stop(): Promise<void>;
}

export async function startDistributionOn(
  configFile: string,
  env: Record<string, string> = {},
): Promise<DistributionProcess> {
  const host = `127.0.0.1:${await freePort()}`;
  // The AWS SDK in Debian's build panics loading AWS_CA_BUNDLE into Distribution's own transport;
  // the gateway here is plain http and needs none.
  const { AWS_CA_BUNDLE: _, ...inherited } = process.env;
  const child = spawn('docker-registry', ['serve', configFile], {
    env: { ...inherited, ...env, REGISTRY_HTTP_ADDR: host },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  const url = `http://${host}`;
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`docker-registry exited: ${stderr}`);
    const status = await fetch(`${url}/v2/`).then(
      async (r) => (await r.body?.cancel(), r.status),
      () => 0,
    );
    if (status === 200 || status === 401) return { url, host, child, stop };
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`docker-registry did not answer on ${url}: ${stderr}`);
}
