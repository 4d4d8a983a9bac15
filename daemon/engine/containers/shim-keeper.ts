// One runc shim serves all of svcd's containers (containerd's shim grouping): a start then skips
// spawning a shim, and the deletion of a task skips waiting for one to exit. A shim exits with
// its last task, so a task that is created and never started holds it: runc leaves that task's
// init blocked before exec, running nothing. The cost is one idle shim while no container runs;
// the gain is also memory, one shim for N containers instead of N.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { NotFoundError } from '../../api/errors';
import { currentCreateBehaviours } from '../../api/versions';
import { isAlreadyExists } from '../../runtime/containerd/grpc-errors';
import { buildSpec } from '../../runtime/oci-spec/build-spec';
import type { EngineContext } from './engine-context';

/** The shim group of every container svcd creates. */
export const SHIM_GROUP = 'svc';

/** The keeper's container ID: one per data root, as cgroups are shared by name. */
export function shimKeeperId(dataRoot: string): string {
  return `svc-shim-keeper-${createHash('sha256').update(dataRoot).digest('hex').slice(0, 16)}`;
}

export class ShimKeeper {
  /** The cgroup is shared by every containerd using the namespace. */
  readonly id: string;
  private ensuring?: Promise<void>;

  constructor(private readonly ctx: EngineContext) {
    this.id = shimKeeperId(ctx.paths.dataRoot);
  }

  /** Creates the keeper task unless it is there (at start, and after its shim went away). */
  ensure(): Promise<void> {
    this.ensuring ??= this.create().finally(() => (this.ensuring = undefined));
    return this.ensuring;
  }

  private async create(): Promise<void> {
    const { client } = this.ctx;
    const task = await client.tasks.get(this.id).catch((err: unknown) => {
      if (err instanceof NotFoundError) return undefined;
      throw err;
    });
    if (task?.status === 'CREATED') return;
    // Stopped: its shim was killed and containerd recorded the exit.
    if (task) await client.tasks.delete(this.id).catch(() => undefined);
    const rootfsPath = this.ctx.paths.shimKeeperRootfs;
    await mkdir(rootfsPath, { recursive: true, mode: 0o700 });
    // runc checks at create that the executable exists: the init binary, bound in, never runs.
    const { spec } = buildSpec({
      id: this.id,
      config: { Cmd: ['never-started'] },
      // Its pids limit only where cgroups can be written (not rootless without delegation).
      hostConfig: {
        NetworkMode: 'none',
        ReadonlyRootfs: true,
        PidsLimit: this.ctx.host.cgroupsUnavailable ? null : 8,
        Init: true,
      },
      rootfsPath,
      behaviours: currentCreateBehaviours,
      host: this.ctx.host,
      shimGroup: SHIM_GROUP,
    });
    await client.containers
      .create({ id: this.id, spec, labels: { 'svc.role': 'shim-keeper' } })
      .catch(async (err: unknown) => {
        if (!isAlreadyExists(err)) throw err;
        await client.containers.update(this.id, { spec });
      });
    await client.tasks.create(this.id, { rootfs: [], options: this.ctx.taskOptions });
  }

  /** Lets the shim go when svcd stops: it exits unless containers still run in it. */
  async release(): Promise<void> {
    await this.ensuring?.catch(() => undefined);
    const { client } = this.ctx;
    await client.tasks.delete(this.id).catch(() => undefined);
    await client.containers.delete(this.id).catch(() => undefined);
  }
}
