// The exec processes of running tasks, asked of the task's shim over its ttrpc socket instead of
// through containerd's Tasks service. containerd only relays these calls (it keeps no record of
// a task's execs: each of its calls asks the shim, and the shim itself publishes the exec's
// events to containerd), and its hop cost about a millisecond per call, plus a State call of
// its own before each Start and Wait.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { packJson, processSpecTypeUrl } from './any';
import { ioFields, type DeletedProcess, type ExitResult, type TaskIO } from './tasks-service';
import { TtrpcConnection } from './ttrpc';
import { toDate, type WireTimestamp } from './types';

const service = 'containerd.task.v2.Task';

/** The directory containerd keeps a task's bundle in: its spec, its shim's address and pid. */
export function taskBundleDir(containerdState: string, namespace: string, id: string): string {
  return path.join(containerdState, 'io.containerd.runtime.v2.task', namespace, id);
}

/** One task's shim: the calls on the task's exec processes. */
export class ShimTask {
  constructor(
    private readonly connection: TtrpcConnection,
    readonly containerId: string,
  ) {}

  private call<Res>(method: string, request: object): Promise<Res> {
    return this.connection.call<Res>(service, method, { id: this.containerId, ...request });
  }

  /** Adds an exec process described by an OCI process spec; `start` runs it. */
  async exec(execId: string, spec: object, io: TaskIO): Promise<void> {
    await this.call('Exec', { execId, spec: packJson(processSpecTypeUrl, spec), ...ioFields(io) });
  }

  async start(execId: string): Promise<number> {
    return (await this.call<{ pid: number }>('Start', { execId })).pid;
  }

  /**
   * Resolves when the process exits. Asked before the start it waits for, and dropped when that
   * fails: a wait that then fails too must not be an unhandled rejection, which ends svcd.
   */
  wait(execId: string): Promise<ExitResult> {
    const exited = this.call<{ exitStatus: number; exitedAt: WireTimestamp }>('Wait', { execId }).then(
      (res) => ({ exitStatus: res.exitStatus, exitedAt: toDate(res.exitedAt) }),
    );
    exited.catch(() => undefined);
    return exited;
  }

  async deleteProcess(execId: string): Promise<DeletedProcess> {
    const res = await this.call<{ pid: number; exitStatus: number; exitedAt: WireTimestamp }>('Delete', {
      execId,
    });
    return { pid: res.pid, exitStatus: res.exitStatus, exitedAt: toDate(res.exitedAt) };
  }

  async resizePty(execId: string, width: number, height: number): Promise<void> {
    await this.call('ResizePty', { execId, width, height });
  }

  /** Closes the process's stdin, so it reads end-of-file. */
  async closeIO(execId: string): Promise<void> {
    await this.call('CloseIO', { execId, stdin: true });
  }
}

/** The shims of one containerd namespace, one connection per shim socket. */
export class ShimTasks {
  private readonly connections = new Map<string, TtrpcConnection>();

  constructor(
    private readonly containerdState: string,
    private readonly namespace: string,
  ) {}

  /** The running task's shim, at the address containerd wrote into the task's bundle. */
  async of(containerId: string): Promise<ShimTask> {
    const bundle = taskBundleDir(this.containerdState, this.namespace, containerId);
    const address = (await readFile(path.join(bundle, 'address'), 'utf8')).trim();
    const socket = address.replace(/^unix:\/\//, '');
    let connection = this.connections.get(socket);
    if (!connection) {
      const made = new TtrpcConnection(socket, () => {
        if (this.connections.get(socket) === made) this.connections.delete(socket);
      });
      connection = made;
      this.connections.set(socket, made);
    }
    return new ShimTask(connection, containerId);
  }

  close(): void {
    for (const connection of this.connections.values()) connection.close();
  }
}
