// The networks svcd keeps: one JSON file each under <data root>/networks, held in memory, found
// as dockerd finds them, and changed one at a time.
import { mkdir, readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NotFoundError } from '../../api/errors';
import type { IpamConfig } from '../../api/network-types';
import { writeFileAtomic } from '../../lib/atomic-file';
import type { Ipv6Addressing } from './ipv6-subnets';

/** What svcd keeps of a network; the IPv6 fields are set when EnableIPv6 is. */
export interface NetworkRecord extends Partial<Ipv6Addressing> {
  Id: string;
  Name: string;
  /** bridge, host or null (none), as Docker names the drivers. */
  Driver: string;
  Created: string;
  Internal: boolean;
  Attachable: boolean;
  EnableIPv6: boolean;
  /** The subnet and gateway in use (bridge networks). */
  Subnet: string;
  Gateway: string;
  IPRange: string;
  /** IPAM.Config as the client gave it, echoed back by inspect. */
  IpamConfig: IpamConfig[];
  /** IPAM.Options as the client gave them: null when it gave none, as dockerd shows them. */
  IpamOptions?: Record<string, string> | null;
  Options: Record<string, string>;
  Labels: Record<string, string>;
  /** The Linux bridge (bridge networks). */
  Bridge: string;
  Builtin: boolean;
  /** The subnet was picked from the pools (not given): it may move while no endpoint uses it. */
  AutoSubnet?: boolean;
  /** A swarm-scope `overlay` network: on the one node it is a bridge network like the others. */
  Overlay?: { Ingress: boolean };
}

export class NetworkRecords {
  private readonly networks = new Map<string, NetworkRecord>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dir: string) {}

  /** Reads the networks on disk. */
  async load(): Promise<void> {
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    for (const file of await readdir(this.dir)) {
      if (!file.endsWith('.json')) continue;
      const record = JSON.parse(await readFile(join(this.dir, file), 'utf8')) as NetworkRecord;
      this.networks.set(record.Id, record);
    }
  }

  /** Runs network changes one at a time: names, subnets and bridges are decided against the others. */
  serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.queue.then(work, work);
    this.queue = next.catch(() => undefined);
    return next;
  }

  all(): NetworkRecord[] {
    return [...this.networks.values()];
  }

  async save(record: NetworkRecord): Promise<void> {
    await writeFileAtomic(join(this.dir, `${record.Id}.json`), JSON.stringify(record));
    this.networks.set(record.Id, record);
  }

  /** Changes a record: on disk first, then in the record its callers hold. */
  async update(record: NetworkRecord, changes: Partial<NetworkRecord>): Promise<void> {
    const changed = { ...record, ...changes };
    await this.save(changed);
    this.networks.set(record.Id, Object.assign(record, changed));
  }

  async delete(id: string): Promise<void> {
    await rm(join(this.dir, `${id}.json`), { force: true });
    this.networks.delete(id);
  }

  /** A network by full ID, name, or unique ID prefix, as dockerd finds them. */
  get(ref: string): NetworkRecord {
    const all = this.all();
    const found =
      all.find((n) => n.Id === ref) ??
      all.find((n) => n.Name === ref) ??
      (() => {
        const byPrefix = all.filter((n) => n.Id.startsWith(ref));
        if (byPrefix.length > 1)
          throw new NotFoundError(
            `network ${ref} is ambiguous (${byPrefix.length} matches found based on ID prefix)`,
          );
        return byPrefix[0];
      })();
    if (!found || ref === '') throw new NotFoundError(`network ${ref} not found`);
    return found;
  }
}
