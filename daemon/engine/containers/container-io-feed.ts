// Each new IO of a container (every start, and the re-attach after an svcd restart), announced
// to whoever follows the container's output: the json-file log writer and attach sessions.
import type { Container } from './container';
import type { ContainerIO } from './container-io';

export type ContainerIOListener = (container: Container, io: ContainerIO) => void;

export class ContainerIOFeed {
  private readonly listeners = new Set<ContainerIOListener>();

  add(listener: ContainerIOListener): void {
    this.listeners.add(listener);
  }

  delete(listener: ContainerIOListener): void {
    this.listeners.delete(listener);
  }

  announce(container: Container, io: ContainerIO): void {
    for (const listener of this.listeners) listener(container, io);
  }
}
