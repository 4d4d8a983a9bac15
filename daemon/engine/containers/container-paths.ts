// The on-disk layout of the containers engine, in one place.
import { join } from 'node:path';

export class ContainerPaths {
  constructor(readonly dataRoot: string) {}

  get containersDir(): string {
    return join(this.dataRoot, 'containers');
  }

  /** The empty root of the task that keeps the shared shim alive (shim-keeper.ts). */
  get shimKeeperRootfs(): string {
    return join(this.dataRoot, 'shim-keeper', 'rootfs');
  }

  dir(id: string): string {
    return join(this.containersDir, id);
  }

  rootfs(id: string): string {
    return join(this.dir(id), 'rootfs');
  }

  io(id: string): string {
    return join(this.dir(id), 'io');
  }

  hosts(id: string): string {
    return join(this.dir(id), 'hosts');
  }

  resolvConf(id: string): string {
    return join(this.dir(id), 'resolv.conf');
  }

  hostname(id: string): string {
    return join(this.dir(id), 'hostname');
  }

  /** The json-file log, named as Docker names it. */
  log(id: string): string {
    return join(this.dir(id), `${id}-json.log`);
  }

  /** FIFOs of the container's execs, one directory each. */
  execIo(id: string, execId: string): string {
    return join(this.dir(id), 'exec', execId);
  }

  healthIo(id: string): string {
    return join(this.dir(id), 'health');
  }
}
