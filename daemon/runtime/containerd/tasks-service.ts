// containerd tasks: the running processes of containers (init and execs) behind runc shims.
import { decodedTypeName, linuxResourcesTypeUrl, packJson, processSpecTypeUrl } from './any';
import { cgroupV1MetricsType, type CgroupV1Metrics } from './cgroup-metrics';
import type { Rpc } from './rpc';
import { toDate, type Mount, type WireAny, type WireTimestamp } from './types';

export type TaskStatus = 'UNKNOWN' | 'CREATED' | 'RUNNING' | 'STOPPED' | 'PAUSED' | 'PAUSING';

/** Paths of FIFOs the shim opens for the process's stdio (created beforehand by the caller). */
export interface TaskIO {
  stdin?: string;
  stdout?: string;
  stderr?: string;
  terminal?: boolean;
}

export interface TaskProcess {
  containerId: string;
  /** The exec ID, or the container ID for the init process. */
  id: string;
  pid: number;
  status: TaskStatus;
  stdin: string;
  stdout: string;
  stderr: string;
  terminal: boolean;
  exitStatus: number;
  exitedAt: Date | undefined;
}

export interface ExitResult {
  exitStatus: number;
  exitedAt: Date | undefined;
}

export interface DeletedProcess extends ExitResult {
  pid: number;
}

export interface TaskMetrics {
  id: string;
  timestamp: Date | undefined;
  /** Decoded cgroup v1 figures; undefined when containerd sent another kind (cgroup v2). */
  cgroupV1: CgroupV1Metrics | undefined;
}

interface WireProcess extends Omit<TaskProcess, 'exitedAt'> {
  exitedAt: WireTimestamp | null;
}

function toProcess(p: WireProcess): TaskProcess {
  return { ...p, exitedAt: toDate(p.exitedAt) };
}

/** The runc shim opens stdout and stderr both or neither: a missing one becomes /dev/null. */
export function ioFields(io: TaskIO) {
  const output = io.stdout || io.stderr ? '/dev/null' : '';
  return {
    stdin: io.stdin ?? '',
    stdout: io.stdout || output,
    stderr: io.stderr || output,
    terminal: io.terminal ?? false,
  };
}

const service = 'tasks.v1.Tasks';

export class TasksService {
  constructor(private readonly rpc: Rpc) {}

  /** Creates the init process (not yet started) on the given root filesystem mounts. */
  async create(
    containerId: string,
    opts: TaskIO & { rootfs: Mount[]; options?: WireAny },
  ): Promise<{ pid: number }> {
    const req = { containerId, rootfs: opts.rootfs, ...ioFields(opts), options: opts.options };
    const res = await this.rpc.unary<{ pid: number }>(service, 'Create', req);
    return { pid: res.pid };
  }

  async start(containerId: string, execId = ''): Promise<number> {
    const res = await this.rpc.unary<{ pid: number }>(service, 'Start', { containerId, execId });
    return res.pid;
  }

  /** Deletes a stopped init process (and with it the shim's record of the task). */
  delete(containerId: string): Promise<DeletedProcess> {
    return this.deleted('Delete', { containerId });
  }

  deleteProcess(containerId: string, execId: string): Promise<DeletedProcess> {
    return this.deleted('DeleteProcess', { containerId, execId });
  }

  private async deleted(method: string, req: object): Promise<DeletedProcess> {
    const res = await this.rpc.unary<{ pid: number; exitStatus: number; exitedAt: WireTimestamp }>(
      service,
      method,
      req,
    );
    return { pid: res.pid, exitStatus: res.exitStatus, exitedAt: toDate(res.exitedAt) };
  }

  async get(containerId: string, execId = ''): Promise<TaskProcess> {
    const res = await this.rpc.unary<{ process: WireProcess }>(service, 'Get', { containerId, execId });
    return toProcess(res.process);
  }

  async list(filter = ''): Promise<TaskProcess[]> {
    const res = await this.rpc.unary<{ tasks: WireProcess[] }>(service, 'List', { filter });
    return res.tasks.map(toProcess);
  }

  /** Sends a signal (a number, e.g. 15) to the init process, an exec, or with `all` every process. */
  async kill(
    containerId: string,
    signal: number,
    opts: { execId?: string; all?: boolean } = {},
  ): Promise<void> {
    await this.rpc.unary(service, 'Kill', {
      containerId,
      execId: opts.execId ?? '',
      signal,
      all: opts.all ?? false,
    });
  }

  /** Adds an exec process described by an OCI process spec; start it with `start(containerId, execId)`. */
  async exec(containerId: string, execId: string, spec: object, io: TaskIO): Promise<void> {
    const req = { containerId, execId, spec: packJson(processSpecTypeUrl, spec), ...ioFields(io) };
    await this.rpc.unary(service, 'Exec', req);
  }

  async resizePty(containerId: string, width: number, height: number, execId = ''): Promise<void> {
    await this.rpc.unary(service, 'ResizePty', { containerId, execId, width, height });
  }

  /** Closes the process's stdin, so it reads end-of-file. */
  async closeIO(containerId: string, execId = ''): Promise<void> {
    await this.rpc.unary(service, 'CloseIO', { containerId, execId, stdin: true });
  }

  async pause(containerId: string): Promise<void> {
    await this.rpc.unary(service, 'Pause', { containerId });
  }

  async resume(containerId: string): Promise<void> {
    await this.rpc.unary(service, 'Resume', { containerId });
  }

  /** Host PIDs of every process in the container. */
  async pids(containerId: string): Promise<number[]> {
    const res = await this.rpc.unary<{ processes: { pid: number }[] }>(service, 'ListPids', { containerId });
    return res.processes.map((p) => p.pid);
  }

  /** Changes the cgroup limits of a running task (an OCI LinuxResources object). */
  async update(containerId: string, resources: object): Promise<void> {
    await this.rpc.unary(service, 'Update', {
      containerId,
      resources: packJson(linuxResourcesTypeUrl, resources),
    });
  }

  async metrics(containerIds: string[]): Promise<TaskMetrics[]> {
    if (containerIds.length === 0) return [];
    const filters = containerIds.map((id) => `id==${id}`);
    const res = await this.rpc.unary<{ metrics: { id: string; timestamp: WireTimestamp; data: unknown }[] }>(
      service,
      'Metrics',
      { filters },
    );
    return res.metrics.map((m) => ({
      id: m.id,
      timestamp: toDate(m.timestamp),
      cgroupV1: decodedTypeName(m.data) === cgroupV1MetricsType ? (m.data as CgroupV1Metrics) : undefined,
    }));
  }

  /**
   * Resolves when the process exits (immediately if it has); `signal` stops waiting. Callers ask
   * before the start or kill they wait for, and drop the wait when that call fails: a wait that
   * then fails too (containerd gone) must not be an unhandled rejection, which ends svcd.
   */
  wait(containerId: string, execId = '', signal?: AbortSignal): Promise<ExitResult> {
    const exited = this.rpc
      .unary<{ exitStatus: number; exitedAt: WireTimestamp }>(
        service,
        'Wait',
        { containerId, execId },
        signal,
      )
      .then((res) => ({ exitStatus: res.exitStatus, exitedAt: toDate(res.exitedAt) }));
    exited.catch(() => undefined);
    return exited;
  }
}
