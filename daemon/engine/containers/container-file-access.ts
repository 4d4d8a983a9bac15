// The container's files from outside it: GET/HEAD/PUT /containers/{id}/archive and export. As
// dockerd does for a container that does not run (a volume browser's, never started), its
// mount-type volumes are mounted for as long as the operation lasts.
import type { Readable } from 'node:stream';
import type { ContainerPathStat } from '../../api/container-summary-types';
import type { Container } from './container';
import { ContainerArchive, exportRootfs } from './container-archive';
import { prepareRootfs } from './container-prepare';
import { type EngineContext, publishContainerEvent } from './engine-context';
import { volumeNames } from './volume-events';

export class ContainerFileAccess {
  constructor(private readonly ctx: EngineContext) {}

  /**
   * `work` on the container's files, with its root filesystem and its mount-type volumes mounted;
   * those stay mounted until `work` says it is done (a tar read out is done when its stream closes).
   */
  private async withArchive<T>(
    container: Container,
    work: (archive: ContainerArchive, done: () => void) => Promise<T>,
  ): Promise<T> {
    await prepareRootfs(this.ctx, container);
    const volumes = volumeNames(container);
    await this.ctx.volumes.lend(volumes);
    let given = false;
    const done = () => {
      if (given) return;
      given = true;
      void this.ctx.volumes
        .giveBack(volumes)
        .catch((err: Error) =>
          this.ctx.log.warn('volume not unmounted', { container: container.id, error: err.message }),
        );
    };
    try {
      return await work(new ContainerArchive(container.record), done);
    } catch (err) {
      done();
      throw err;
    }
  }

  stat(container: Container, path: string): Promise<ContainerPathStat> {
    return this.withArchive(container, (a, done) => a.stat(path).finally(done));
  }

  /** A tar of the path; `copy` is the event of the pre-1.20 copy endpoint, as Docker names it. */
  async get(
    container: Container,
    path: string,
    event: 'archive-path' | 'copy',
  ): Promise<{ stat: ContainerPathStat; archive: Readable }> {
    const got = await this.withArchive(container, async (a, done) => {
      const out = await a.get(path);
      out.archive.once('close', done);
      return out;
    });
    publishContainerEvent(this.ctx, container, event);
    return got;
  }

  async put(
    container: Container,
    path: string,
    body: Readable,
    opts: { noOverwriteDirNonDir: boolean; copyUIDGID: boolean },
  ): Promise<void> {
    await this.withArchive(container, (a, done) => a.put(path, body, opts).finally(done));
    publishContainerEvent(this.ctx, container, 'extract-to-dir');
  }

  async export(container: Container): Promise<Readable> {
    await prepareRootfs(this.ctx, container);
    publishContainerEvent(this.ctx, container, 'export');
    return exportRootfs(container.record);
  }
}
