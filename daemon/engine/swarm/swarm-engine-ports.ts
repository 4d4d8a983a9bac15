// The swarm's narrow ports on the engines it uses, made from those engines' services: task
// containers through the containers engine (its events wake the orchestrator, its logs make
// a service's), names of networks through the networks engine.
import { join } from 'node:path';
import { NotFoundError } from '../../api/errors';
import type { LogsRequest, LogsStream } from '../../api/container-stream-types';
import { currentCreateBehaviours } from '../../api/versions';
import type { ContainersService } from '../containers/containers-service';
import type { EventsService } from '../events/events-service';
import type { ImageService } from '../images/image-service';
import type { NetworksService } from '../networks/networks-service';
import { parseSubnet } from '../../runtime/cni/ipv4';
import {
  applyVipRoute,
  releaseVip,
  removeVipRoute,
  reserveVip,
  type VipRoute,
} from '../../runtime/cni/service-vip';
import type { VipTable } from './service-vips';
import type { SwarmNetworksPort } from './swarm-engine';
import { taskLabel, type TaskContainerPort } from './task-containers';

export function taskContainersOf(
  containers: ContainersService,
  events: EventsService,
  logs: (ref: string, req: LogsRequest) => LogsStream,
  images: Pick<ImageService, 'inspect' | 'pull'>,
): TaskContainerPort {
  return {
    ensureImage: async (ref, auth) => {
      const present = await images.inspect(ref).then(
        () => true,
        (err: unknown) => {
          if (err instanceof NotFoundError) return false;
          throw err;
        },
      );
      // A reference without tag or digest is `:latest`, as dockerd's task pull takes it.
      const tag = /@|:[^/]*$/.test(ref) ? undefined : 'latest';
      if (!present) await images.pull({ image: ref, tag, auth, emit: () => undefined });
    },
    create: async (name, body) =>
      (await containers.create({ name, swarmTask: true, body, behaviours: currentCreateBehaviours })).Id,
    connect: (id, network, aliases) => containers.connectNetwork(network, id, { Aliases: aliases }),
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
  const leases = (networkId: string) => join(networks.cniDir, 'ipam', networkId);
  /** The routes in place, by bridge and VIP. */
  const routed = new Map<string, VipRoute>();
  return {
    reserve: async (networkId, owner) => {
      const record = networks.get(networkId);
      const ip = await reserveVip(leases(record.Id), record.Subnet, record.Gateway, owner);
      return `${ip}/${parseSubnet(record.Subnet).prefix}`;
    },
    release: (networkId, addr, owner) => releaseVip(leases(networkId), addr.split('/')[0], owner),
    route: async (table: VipTable) => {
      const wanted = new Map<string, VipRoute>();
      for (const { networkId, vip, backends } of table) {
        const bridge = networks.get(networkId).Bridge;
        // Without a running task the bridge may not exist yet; the VIP is routed once one runs.
        if (backends.length) wanted.set(`${bridge} ${vip}`, { bridge, vip, backends });
      }
      for (const [key, r] of routed)
        if (!wanted.has(key)) {
          await removeVipRoute(r);
          routed.delete(key);
        }
      for (const [key, r] of wanted) {
        if (JSON.stringify(routed.get(key)) === JSON.stringify(r)) continue;
        await applyVipRoute(r);
        routed.set(key, r);
      }
    },
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
