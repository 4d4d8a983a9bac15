// The engines the user added besides the embedded svcd: their stored configurations, one
// connection pool each (over the engine's own transport), and a quick /version check for the
// status the UI shows. Only summaries leave this module for the renderer.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import type { EngineStatus, EngineSummary } from '../../../daemon/api/desktop-types';
import { dialerFor, type Dial } from './engine-dialer';
import { EngineSpecError, parseEngineSpec, type EngineConfig } from './engine-spec';

/** Where the configurations are kept (SettingsFile satisfies it). */
export interface EngineConfigStore {
  readEngines(): EngineConfig[];
  writeEngines(engines: EngineConfig[]): void;
}

export interface EngineTarget {
  dial: Dial;
  agent: http.Agent;
  /** The Host header the engine gets, as the docker CLI sends it. */
  host: string;
}

/** A refusal with its HTTP status: 400 for a bad spec, 404 for an unknown id, 409 for a clash. */
export class EngineRequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

const STATUS_TIMEOUT_MS = 5000;

export class AddedEngines {
  private readonly targets = new Map<string, EngineTarget>();

  constructor(private readonly store: EngineConfigStore) {}

  list(): EngineSummary[] {
    return this.store.readEngines().map(summaryOf);
  }

  add(body: unknown): EngineSummary {
    let config: EngineConfig;
    try {
      config = parseEngineSpec(body, randomBytes(6).toString('hex'));
    } catch (err) {
      if (err instanceof EngineSpecError) throw new EngineRequestError(400, err.message);
      throw err;
    }
    const engines = this.store.readEngines();
    if (engines.some((e) => e.name === config.name))
      throw new EngineRequestError(409, `an engine named ${config.name} already exists`);
    this.store.writeEngines([...engines, config]);
    return summaryOf(config);
  }

  remove(id: string): void {
    const engines = this.store.readEngines();
    if (!engines.some((e) => e.id === id)) throw new EngineRequestError(404, `no such engine: ${id}`);
    this.store.writeEngines(engines.filter((e) => e.id !== id));
    this.targets.get(id)?.agent.destroy();
    this.targets.delete(id);
  }

  /** How to reach engine `id`, or undefined when there is no such engine. */
  target(id: string): EngineTarget | undefined {
    const known = this.targets.get(id);
    if (known) return known;
    const config = this.store.readEngines().find((e) => e.id === id);
    if (!config) return undefined;
    const dial = dialerFor(config);
    const agent = new http.Agent({ keepAlive: true });
    // The pool's connections are ours to make: a socket, a TLS session or an ssh child.
    agent.createConnection = () => dial() as ReturnType<typeof agent.createConnection>;
    const host = config.kind === 'tcp' ? new URL(config.endpoint).host : 'docker';
    const target = { dial, agent, host };
    this.targets.set(id, target);
    return target;
  }

  /** The engine's /version, or why it did not answer. */
  async status(id: string): Promise<EngineStatus> {
    const target = this.target(id);
    if (!target) throw new EngineRequestError(404, `no such engine: ${id}`);
    try {
      const v = JSON.parse(await getText(target, '/version')) as {
        Version?: string;
        ApiVersion?: string;
        Os?: string;
      };
      return { id, up: true, version: v.Version, apiVersion: v.ApiVersion, os: v.Os };
    } catch (err) {
      return { id, up: false, reason: (err as Error).message };
    }
  }

  close(): void {
    for (const t of this.targets.values()) t.agent.destroy();
    this.targets.clear();
  }
}

function summaryOf(c: EngineConfig): EngineSummary {
  return { id: c.id, name: c.name, kind: c.kind, endpoint: c.endpoint, tls: c.tls !== undefined };
}

function getText(target: EngineTarget, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = http.get({ agent: target.agent, path, headers: { host: target.host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        if (res.statusCode === 200) resolve(text);
        else reject(new Error(`the engine answered ${res.statusCode}: ${text.trim().slice(0, 200)}`));
      });
    });
    req.setTimeout(STATUS_TIMEOUT_MS, () => req.destroy(new Error('no answer within 5 s')));
    req.on('error', reject);
  });
}
