// The swarm itself on one node: init, inspect, update (tokens, autolock), unlock, leave, and
// /info's Swarm block. A second machine cannot join: one machine is this swarm's limit.
import { isIPv4, isIPv6 } from 'node:net';
import {
  InvalidParameterError,
  NotImplementedError,
  UnavailableError,
  ConflictError,
} from '../../api/errors';
import type {
  SwarmInfo,
  SwarmInitRequest,
  SwarmInspect,
  SwarmSpec,
  SwarmUpdateRequest,
} from '../../api/swarm-types';
import type { Cluster } from './cluster';
import type { ClusterState, SwarmRecord } from './cluster-state';
import { caOf, makeSwarmCa } from './swarm-ca';
import { newJoinToken, newObjectId, newUnlockKey } from './swarm-ids';
import { nodeDescription, type NodeHost } from './swarm-node';

export const oneMachineMessage =
  'svcd runs a swarm of one machine: it cannot join another swarm and no other node can join it. ' +
  'A cluster of several hosts is Docker Swarm or Kubernetes, which Svc Desktop manages as a remote engine';
const alreadyInSwarm =
  'This node is already part of a swarm. Use "docker swarm leave" to leave this swarm and join another one.';
const lastManagerLeave =
  'You are attempting to leave the swarm on a node that is participating as a manager. Removing the last manager erases all current state of the swarm. Use `--force` to ignore this message.';

const managerPort = 2377;

/** The spec dockerd fills in where init or update leaves a field out. */
function specWithDefaults(spec: SwarmSpec = {}, autoLock = false): SwarmSpec {
  return {
    Name: spec.Name || 'default',
    Labels: spec.Labels ?? {},
    Orchestration: { TaskHistoryRetentionLimit: spec.Orchestration?.TaskHistoryRetentionLimit ?? 5 },
    Raft: {
      SnapshotInterval: spec.Raft?.SnapshotInterval || 10000,
      KeepOldSnapshots: spec.Raft?.KeepOldSnapshots ?? 0,
      LogEntriesForSlowFollowers: spec.Raft?.LogEntriesForSlowFollowers || 500,
      ElectionTick: spec.Raft?.ElectionTick || 10,
      HeartbeatTick: spec.Raft?.HeartbeatTick || 1,
    },
    Dispatcher: { HeartbeatPeriod: spec.Dispatcher?.HeartbeatPeriod || 5_000_000_000 },
    CAConfig: { NodeCertExpiry: spec.CAConfig?.NodeCertExpiry || 7_776_000_000_000_000 },
    TaskDefaults: spec.TaskDefaults ?? {},
    EncryptionConfig: { AutoLockManagers: spec.EncryptionConfig?.AutoLockManagers ?? autoLock },
  };
}

/** `host`, `host:port` or `:port` with the host an IP (a name would need a lookup). */
function parseAddr(field: string, value: string, defaultHost: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*))(?::(\d+))?$/.exec(value);
  const host = m?.[1] ?? m?.[2] ?? '';
  const port = m?.[3] === undefined ? managerPort : Number(m[3]);
  if (!m || (host && !isIPv4(host) && !isIPv6(host)) || port < 1 || port > 65535)
    throw new InvalidParameterError(`invalid ${field} ${JSON.stringify(value)}: expected IP[:port]`);
  return { host: host || defaultHost, port };
}

function checkPools(pools: string[], subnetSize: number): void {
  for (const pool of pools) {
    const m = /^(\d+\.\d+\.\d+\.\d+)\/(\d+)$/.exec(pool);
    if (!m || !isIPv4(m[1]) || Number(m[2]) > 29)
      throw new InvalidParameterError(`invalid default address pool ${JSON.stringify(pool)}`);
    if (subnetSize < Number(m[2]))
      throw new InvalidParameterError(`subnet size ${subnetSize} is larger than the pool ${pool}`);
  }
  if (subnetSize < 1 || subnetSize > 29) throw new InvalidParameterError(`invalid subnet size ${subnetSize}`);
}

export interface SwarmServiceDeps {
  cluster: Cluster;
  host: NodeHost;
  /** Undoes what the swarm made on this engine (task containers, swarm networks) on leave. */
  teardown: () => Promise<void>;
  /** Made once the swarm is: its ingress network. */
  setUp: () => Promise<void>;
}

export class SwarmService {
  constructor(private readonly deps: SwarmServiceDeps) {}

  private get cluster(): Cluster {
    return this.deps.cluster;
  }

  async init(req: SwarmInitRequest): Promise<string> {
    if (this.cluster.active || this.cluster.locked) {
      if (!req.ForceNewCluster) throw new UnavailableError(alreadyInSwarm);
    }
    const listen = parseAddr('ListenAddr', req.ListenAddr || '0.0.0.0:2377', '0.0.0.0');
    // One machine: the loopback address is what a node advertises unless told otherwise.
    const advertise = parseAddr('AdvertiseAddr', req.AdvertiseAddr || '127.0.0.1', '127.0.0.1');
    if (req.DataPathAddr) parseAddr('DataPathAddr', req.DataPathAddr, '');
    const dataPathPort = req.DataPathPort || 4789;
    if (!Number.isInteger(dataPathPort) || dataPathPort < 1024 || dataPathPort > 49151)
      throw new InvalidParameterError(`data path port ${dataPathPort} is out of the range 1024-49151`);
    const pools = req.DefaultAddrPool?.length ? req.DefaultAddrPool : ['10.0.0.0/8'];
    const subnetSize = req.SubnetSize || 24;
    checkPools(pools, subnetSize);
    if (req.Availability && !['active', 'pause', 'drain'].includes(req.Availability))
      throw new InvalidParameterError(`invalid Availability ${JSON.stringify(req.Availability)}`);
    let nodeId = '';
    await this.cluster.replace(async () => {
      const previous = req.ForceNewCluster ? this.cluster.peek() : undefined;
      const ca = previous ? caOf(previous.swarm.TLSInfo.TrustRoot) : await makeSwarmCa();
      const spec = specWithDefaults(req.Spec, req.AutoLockManagers);
      const state: ClusterState = previous ?? {
        index: 0,
        swarm: undefined as unknown as SwarmRecord,
        nodes: [],
        services: [],
        tasks: [],
        secrets: [],
        configs: [],
        networks: [],
      };
      const meta = { ID: previous?.swarm.ID ?? newObjectId(), Version: { Index: ++state.index } };
      const now = new Date().toISOString();
      state.swarm = {
        ...meta,
        CreatedAt: previous?.swarm.CreatedAt ?? now,
        UpdatedAt: now,
        Spec: spec,
        TLSInfo: ca.tls,
        DataPathPort: dataPathPort,
        DefaultAddrPool: pools,
        SubnetSize: subnetSize,
        JoinTokens: { Worker: newJoinToken(ca.certDer), Manager: newJoinToken(ca.certDer) },
        ListenAddr: `${listen.host}:${listen.port}`,
        AdvertiseAddr: `${advertise.host}:${advertise.port}`,
        UnlockKey: spec.EncryptionConfig?.AutoLockManagers ? newUnlockKey() : undefined,
      };
      if (!previous) {
        state.nodes.push({
          ...this.cluster.newMeta(state, newObjectId()),
          Spec: { Labels: {}, Role: 'manager', Availability: (req.Availability as 'active') || 'active' },
          Description: nodeDescription(this.deps.host, ca.tls),
          Status: { State: 'ready', Addr: advertise.host },
          ManagerStatus: { Leader: true, Reachability: 'reachable', Addr: state.swarm.AdvertiseAddr },
        });
      }
      nodeId = state.nodes[0].ID;
      return state;
    });
    if (req.ForceNewCluster) return nodeId;
    // dockerd's events as the new node becomes the manager and is ready (its name unset at first).
    this.cluster.publish('node', 'update', nodeId, { name: '', 'role.old': 'worker', 'role.new': 'manager' });
    this.cluster.publish('node', 'update', nodeId, {
      name: this.deps.host.hostname,
      'state.old': 'unknown',
      'state.new': 'ready',
    });
    await this.deps.setUp();
    return nodeId;
  }

  inspect(): SwarmInspect {
    const { swarm } = this.cluster.current();
    return { ...this.cluster0(swarm), JoinTokens: swarm.JoinTokens };
  }

  private cluster0(swarm: SwarmRecord): Omit<SwarmInspect, 'JoinTokens'> {
    return {
      ID: swarm.ID,
      Version: swarm.Version,
      CreatedAt: swarm.CreatedAt,
      UpdatedAt: swarm.UpdatedAt,
      Spec: swarm.Spec,
      TLSInfo: swarm.TLSInfo,
      RootRotationInProgress: false,
      DefaultAddrPool: swarm.DefaultAddrPool,
      SubnetSize: swarm.SubnetSize,
      DataPathPort: swarm.DataPathPort,
    };
  }

  update(req: SwarmUpdateRequest): Promise<void> {
    return this.cluster.write((state) => {
      const { swarm } = state;
      if (req.version !== swarm.Version.Index)
        throw new ConflictError(
          `update out of sequence: the swarm's version is ${swarm.Version.Index}, the request's ${req.version}`,
        );
      const autoLock = req.spec.EncryptionConfig?.AutoLockManagers ?? false;
      const ca = caOf(swarm.TLSInfo.TrustRoot);
      swarm.Spec = specWithDefaults(req.spec, autoLock);
      if (req.rotateWorkerToken) swarm.JoinTokens.Worker = newJoinToken(ca.certDer);
      if (req.rotateManagerToken) swarm.JoinTokens.Manager = newJoinToken(ca.certDer);
      if (!autoLock) swarm.UnlockKey = undefined;
      else if (!swarm.UnlockKey || req.rotateManagerUnlockKey) swarm.UnlockKey = newUnlockKey();
      swarm.Version = { Index: ++state.index };
      swarm.UpdatedAt = new Date().toISOString();
    });
  }

  unlockKey(): { UnlockKey: string } {
    const { swarm } = this.cluster.current();
    // dockerd answers an empty key when autolock is off; the CLI says so from that.
    return { UnlockKey: swarm.UnlockKey ?? '' };
  }

  async unlock(key: string): Promise<void> {
    if (!this.cluster.locked) {
      if (this.cluster.active) throw new InvalidParameterError('swarm is not locked');
      this.cluster.current();
    }
    const state = await this.cluster.file.unlock(key);
    this.cluster.opened(state);
    this.cluster.onChange();
  }

  async leave(force: boolean): Promise<void> {
    if (!this.cluster.locked) this.cluster.current();
    if (!force) throw new UnavailableError(lastManagerLeave);
    await this.deps.teardown();
    await this.cluster.replace(async () => undefined);
  }

  join(): never {
    if (this.cluster.active || this.cluster.locked) throw new UnavailableError(alreadyInSwarm);
    throw new NotImplementedError(oneMachineMessage);
  }

  info(): SwarmInfo {
    const inactive: SwarmInfo = {
      NodeID: '',
      NodeAddr: '',
      LocalNodeState: 'inactive',
      ControlAvailable: false,
      Error: '',
      RemoteManagers: null,
    };
    if (this.cluster.locked) return { ...inactive, LocalNodeState: 'locked' };
    const state = this.cluster.peek();
    if (!state) return inactive;
    const node = state.nodes[0];
    return {
      NodeID: node.ID,
      NodeAddr: node.Status.Addr,
      LocalNodeState: 'active',
      ControlAvailable: true,
      Error: '',
      RemoteManagers: [{ NodeID: node.ID, Addr: state.swarm.AdvertiseAddr }],
      Nodes: state.nodes.length,
      Managers: state.nodes.filter((n) => n.Spec.Role === 'manager').length,
      Cluster: this.cluster0(state.swarm),
    };
  }
}
