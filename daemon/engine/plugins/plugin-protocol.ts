// The plugin protocol (JSON POSTs on the plugin's socket): activation, and the VolumeDriver calls
// svcd's volumes make. A driver's `Err` (whatever the status) or a non-200 answer becomes the
// error the client sees, named by the call, as dockerd words it; a call not answered in time is
// cut off with a message that says so.
import { SystemError } from '../../api/errors';
import { JsonPostTimeoutError, postJson, type JsonPostTarget } from '../../lib/json-post';

/** How long a driver call may take before svcd gives up on it (dockerd's client allows 30 s). */
export const DEFAULT_CALL_TIMEOUT_MS = 30_000;

export type PluginEndpoint = JsonPostTarget;

interface Answer {
  Err?: string;
  [key: string]: unknown;
}

/** One call; `who` names the plugin in a timeout's message. */
export async function call<T extends Answer>(
  endpoint: PluginEndpoint,
  method: string,
  body: unknown,
  timeoutMs: number,
  who = 'the plugin',
): Promise<T> {
  let answer;
  try {
    answer = await postJson(endpoint, `/${method}`, body, timeoutMs);
  } catch (err) {
    if (err instanceof JsonPostTimeoutError)
      throw new SystemError(`${method}: timeout: ${who} did not answer within ${timeoutMs / 1000}s`);
    throw new SystemError(`${method}: ${who} cannot be reached: ${(err as Error).message}`);
  }
  const parsed = (typeof answer.body === 'object' && answer.body !== null ? answer.body : {}) as T;
  const text = typeof answer.body === 'string' ? answer.body.trim() : '';
  if (answer.status !== 200)
    throw new SystemError(`${method}: ${parsed.Err || text || `status ${answer.status}`}`);
  if (parsed.Err) throw new SystemError(`${method}: ${parsed.Err}`);
  return parsed;
}

/** `POST /Plugin.Activate`: the interfaces the plugin implements (e.g. VolumeDriver). */
export async function activate(endpoint: PluginEndpoint, timeoutMs: number): Promise<string[]> {
  const answer = await call<{ Implements?: unknown }>(endpoint, 'Plugin.Activate', {}, timeoutMs);
  if (!Array.isArray(answer.Implements))
    throw new SystemError('Plugin.Activate: the answer has no Implements list');
  return answer.Implements.map(String);
}

export interface DriverVolume {
  Name: string;
  Mountpoint?: string;
  CreatedAt?: string;
  Status?: Record<string, unknown>;
}

/** The VolumeDriver protocol of one plugin; paths it answers are inside the plugin (see `hostPath`). */
export class VolumeDriverClient {
  constructor(
    readonly name: string,
    private readonly endpoint: PluginEndpoint,
    private readonly timeoutMs: number,
    /** A path the driver answered, as the host sees it. */
    readonly hostPath: (path: string) => string,
  ) {}

  private call<T extends Answer>(method: string, body: unknown): Promise<T> {
    return call<T>(
      this.endpoint,
      `VolumeDriver.${method}`,
      body,
      this.timeoutMs,
      `volume plugin ${this.name}`,
    );
  }

  async create(name: string, opts: Record<string, string>): Promise<void> {
    await this.call('Create', { Name: name, Opts: opts });
  }

  async remove(name: string): Promise<void> {
    await this.call('Remove', { Name: name });
  }

  async mount(name: string, id: string): Promise<string> {
    const answer = await this.call<{ Mountpoint?: string }>('Mount', { Name: name, ID: id });
    if (!answer.Mountpoint)
      throw new SystemError(`VolumeDriver.Mount: ${this.name} answered no Mountpoint for ${name}`);
    return this.hostPath(answer.Mountpoint);
  }

  async unmount(name: string, id: string): Promise<void> {
    await this.call('Unmount', { Name: name, ID: id });
  }

  async path(name: string): Promise<string> {
    const answer = await this.call<{ Mountpoint?: string }>('Path', { Name: name });
    return answer.Mountpoint ? this.hostPath(answer.Mountpoint) : '';
  }

  async get(name: string): Promise<DriverVolume> {
    const answer = await this.call<{ Volume?: DriverVolume }>('Get', { Name: name });
    if (!answer.Volume)
      throw new SystemError(`VolumeDriver.Get: ${this.name} answered no Volume for ${name}`);
    return answer.Volume;
  }

  async list(): Promise<DriverVolume[]> {
    const answer = await this.call<{ Volumes?: DriverVolume[] }>('List', {});
    return answer.Volumes ?? [];
  }

  /** `local` unless the driver says `global`. */
  async scope(): Promise<'local' | 'global'> {
    const answer = await this.call<{ Capabilities?: { Scope?: string } }>('Capabilities', {}).catch(() => ({
      Capabilities: undefined,
    }));
    return answer.Capabilities?.Scope === 'global' ? 'global' : 'local';
  }
}
