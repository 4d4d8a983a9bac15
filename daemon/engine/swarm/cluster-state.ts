// The one node's whole cluster state, and its file under the data root. Written atomically
// and readable by root only (it holds secret data). When the swarm is autolocked the file is
// sealed with the unlock key (AES-256-GCM), so after a restart nothing is readable until
// `swarm unlock` gives the key back, as swarmkit seals its raft log.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { InvalidParameterError } from '../../api/errors';
import type {
  JoinTokens,
  SwarmConfig,
  SwarmNode,
  SwarmSecret,
  SwarmService,
  SwarmSpec,
  SwarmTask,
  TlsInfo,
} from '../../api/swarm-types';
import { writeFileAtomic } from '../../lib/atomic-file';

export interface SwarmRecord {
  ID: string;
  CreatedAt: string;
  UpdatedAt: string;
  Version: { Index: number };
  Spec: SwarmSpec;
  TLSInfo: TlsInfo;
  DataPathPort: number;
  DefaultAddrPool: string[];
  SubnetSize: number;
  JoinTokens: JoinTokens;
  ListenAddr: string;
  AdvertiseAddr: string;
  /** Set while AutoLockManagers is on. */
  UnlockKey?: string;
}

/** A swarm-scope network: its record lives in the networks service, made by the swarm. */
export interface SwarmNetworkRecord {
  ID: string;
  Name: string;
}

export interface ClusterState {
  /** The raft index's stand-in: every write takes the next one as its object's Version. */
  index: number;
  swarm: SwarmRecord;
  nodes: SwarmNode[];
  services: SwarmService[];
  tasks: SwarmTask[];
  secrets: SwarmSecret[];
  configs: SwarmConfig[];
  networks: SwarmNetworkRecord[];
  /**
   * Each service's X-Registry-Auth for its spec and its previous spec, which its tasks' image
   * pulls use: never shown, sealed with the rest when the swarm autolocks.
   */
  registryAuth?: Record<string, { spec?: string; previous?: string }>;
}

interface SealedFile {
  sealed: { iv: string; tag: string; data: string };
}

const keyOf = (unlockKey: string) => createHash('sha256').update(unlockKey).digest();

export type LoadedState = { kind: 'none' } | { kind: 'locked' } | { kind: 'open'; state: ClusterState };

export class ClusterStateFile {
  private readonly dir: string;
  private readonly file: string;

  constructor(dataRoot: string) {
    this.dir = join(dataRoot, 'swarm');
    this.file = join(this.dir, 'state.json');
  }

  async load(): Promise<LoadedState> {
    const text = await readFile(this.file, 'utf8').catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return undefined;
      throw err;
    });
    if (text === undefined) return { kind: 'none' };
    const parsed = JSON.parse(text) as ClusterState | SealedFile;
    return 'sealed' in parsed ? { kind: 'locked' } : { kind: 'open', state: parsed };
  }

  /** The sealed state opened with the key the user gave. */
  async unlock(unlockKey: string): Promise<ClusterState> {
    const { sealed } = JSON.parse(await readFile(this.file, 'utf8')) as SealedFile;
    try {
      const decipher = createDecipheriv('aes-256-gcm', keyOf(unlockKey), Buffer.from(sealed.iv, 'base64'));
      decipher.setAuthTag(Buffer.from(sealed.tag, 'base64'));
      const plain = Buffer.concat([decipher.update(Buffer.from(sealed.data, 'base64')), decipher.final()]);
      return JSON.parse(plain.toString('utf8')) as ClusterState;
    } catch {
      throw new InvalidParameterError('swarm could not be unlocked: invalid key');
    }
  }

  async save(state: ClusterState): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const key = state.swarm.UnlockKey;
    if (!key) return writeFileAtomic(this.file, JSON.stringify(state), 0o600);
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', keyOf(key), iv);
    const data = Buffer.concat([cipher.update(JSON.stringify(state), 'utf8'), cipher.final()]);
    const sealed: SealedFile = {
      sealed: {
        iv: iv.toString('base64'),
        tag: cipher.getAuthTag().toString('base64'),
        data: data.toString('base64'),
      },
    };
    await writeFileAtomic(this.file, JSON.stringify(sealed), 0o600);
  }

  /** A directory for files made from the state (secrets and configs given to task containers). */
  filesDir(...parts: string[]): string {
    return join(this.dir, 'files', ...parts);
  }

  async remove(): Promise<void> {
    await rm(this.dir, { recursive: true, force: true });
  }
}
