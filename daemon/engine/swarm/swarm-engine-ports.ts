// The swarm's narrow ports on the engines it uses, made from those engines' services: task
// containers through the containers engine (its events wake the orchestrator, its logs make
// a service's), names of networks through the networks engine.
import { NotFoundError } from '../../api/errors';
import type { LogsRequest, LogsStream } from '../../api/container-stream-types';
import { currentCreateBehaviours } from '../../api/versions';
import type { ContainersService } from '../containers/containers-service';
import type { EventsService } from '../events/events-service';
import type { NetworksService } from '../networks/networks-service';
import type { SwarmNetworksPort } from './swarm-engine';
import { taskLabel, type TaskContainerPort } from './task-containers';

export function taskContainersOf(
  containers: ContainersService,
  events: EventsService,
  logs: (ref: string, req: LogsRequest) => LogsStream,
): TaskContainerPort {
  return {
    create: async (name, body) =>
      (await containers.create({ name, swarmTask: true, body, behaviours: currentCreateBehaviours })).Id,
    start: (id) => containers.start(id),
    stop: (id, timeoutSec) => containers.stop(id, timeoutSec),
    remove: (id) => containers.remove(id, { force: true, volumes: false }),
    inspect: (id) =>
      containers.inspect(id, false).catch((err: unknown) => {
        if (err instanceof NotFoundError) return undefined;
        throw err;
      }),
    taskContainers: async () =>
      (await containers.list({ all: true, size: false, filters: new Map([['label', [taskLabel]]]) })).map(
        (c) => ({
          id: c.Id,
          taskId: c.Labels[taskLabel],
        }),
      ),
    watch: (listener) => {
      const stop = new AbortController();
      const feed = events.subscribe({
        filters: new Map([
          ['type', ['container']],
          ['label', [taskLabel]],
        ]),
        signal: stop.signal,
      });
      void (async () => {
        for await (const e of feed) listener(e.Actor.ID);
      })().catch(() => undefined);
      return () => stop.abort();
    },
    logs,
  };
}

export function swarmNetworksOf(networks: NetworksService): SwarmNetworksPort {
  return {
    resolve: (ref) => networks.get(ref).Id,
    nameOf: (id) => {
      try {
        return networks.get(id).Name;
      } catch {
        return undefined;
      }
    },
    createIngress: async () => {
      await networks.create({ Name: 'ingress', Driver: 'overlay', Ingress: true });
    },
    removeOverlays: async () => {
      for (const n of networks.list(new Map([['driver', ['overlay']]])))
        await networks.remove(n.Id).catch(() => undefined);
    },
  };
}
