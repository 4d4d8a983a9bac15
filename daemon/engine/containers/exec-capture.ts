// Runs a short process inside a running container through a containerd exec and collects its
// output (health checks); the exec API's instances are daemon/engine/exec's.
import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { ContainerdClient } from '../../runtime/containerd/client';
import { createFifos, openFifoReader } from '../../runtime/containerd/fifo';
import type { OciProcess } from '../../runtime/oci-spec/oci-types';

export interface CapturedExec {
  /** -1 when the process was killed for taking too long. */
  exitCode: number;
  output: string;
  timedOut: boolean;
}

const maxOutput = 4096;

export async function execCapture(
  client: ContainerdClient,
  containerId: string,
  process: OciProcess,
  dir: string,
  timeoutMs: number,
): Promise<CapturedExec> {
  const execId = `svc-${randomBytes(6).toString('hex')}`;
  const fifoDir = join(dir, execId);
  await mkdir(fifoDir, { recursive: true, mode: 0o700 });
  const stdout = join(fifoDir, 'stdout');
  const stderr = join(fifoDir, 'stderr');
  await createFifos([stdout, stderr]);
  let output = '';
  const collect = (path: string) =>
    new Promise<void>((resolve) => {
      const reader = openFifoReader(path);
      reader.on('data', (chunk: Buffer) => {
        if (output.length < maxOutput) output += chunk.toString('utf8');
      });
      reader.on('error', () => resolve());
      reader.on('close', () => resolve());
    });
  const outputs = Promise.all([collect(stdout), collect(stderr)]);
  let timedOut = false;
  try {
    await client.tasks.exec(containerId, execId, { ...process, terminal: false }, { stdout, stderr });
    const exited = client.tasks.wait(containerId, execId);
    await client.tasks.start(containerId, execId);
    const timer = setTimeout(() => {
      timedOut = true;
      void client.tasks.kill(containerId, 9, { execId }).catch(() => undefined);
    }, timeoutMs);
    const result = await exited.finally(() => clearTimeout(timer));
    await client.tasks.deleteProcess(containerId, execId).catch(() => undefined);
    await Promise.race([outputs, new Promise((r) => setTimeout(r, 1000))]);
    return { exitCode: timedOut ? -1 : result.exitStatus, output: output.slice(0, maxOutput), timedOut };
  } finally {
    await rm(fifoDir, { recursive: true, force: true });
  }
}
