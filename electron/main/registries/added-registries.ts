// The registries of the registry browser: the embedded svc-registry first, then those the user
// added (stored with their credentials in the main process). Only summaries leave this module.
import { randomBytes } from 'node:crypto';
import type { RegistryAuthKind, RegistrySummary } from '../../../daemon/api/desktop-types';
import { RegistrySession, type RegistryConfig } from './registry-session';

export const EMBEDDED_REGISTRY = 'embedded';

/** Where the configurations are kept (SettingsFile satisfies it). */
export interface RegistryConfigStore {
  readRegistries(): RegistryConfig[];
  writeRegistries(registries: RegistryConfig[]): void;
}

/** A refusal with its HTTP status: 400 for a bad request, 404 for an unknown id, 409 for a clash. */
export class RegistryRequestError extends Error {
  constructor(
    readonly status: 400 | 404 | 409,
    message: string,
  ) {
    super(message);
  }
}

const AUTH_KINDS: RegistryAuthKind[] = ['none', 'basic', 'token'];

/** Checks a POST /api/registries body; the id is given. */
export function parseRegistrySpec(body: unknown, id: string): RegistryConfig {
  if (typeof body !== 'object' || body === null)
    throw new RegistryRequestError(400, 'expected a JSON object');
  const b = body as Record<string, unknown>;
  const str = (k: string) => (typeof b[k] === 'string' ? (b[k] as string).trim() : '');
  const name = str('name');
  if (!name) throw new RegistryRequestError(400, 'a name is required');
  let url: URL;
  try {
    url = new URL(str('url'));
  } catch {
    throw new RegistryRequestError(400, `not a URL: ${JSON.stringify(str('url'))} (http://host:port)`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new RegistryRequestError(400, 'the URL must start with http:// or https://');
  if (url.username || url.password)
    throw new RegistryRequestError(400, 'give the credentials in their own fields, not in the URL');
  const auth = (str('auth') || 'none') as RegistryAuthKind;
  if (!AUTH_KINDS.includes(auth))
    throw new RegistryRequestError(400, `auth must be one of ${AUTH_KINDS.join(', ')}`);
  const username = str('username');
  if (auth !== 'none' && !username) throw new RegistryRequestError(400, `${auth} auth needs a username`);
  const config: RegistryConfig = { id, name, url: url.origin, auth };
  if (auth !== 'none')
    Object.assign(config, { username, password: typeof b.password === 'string' ? b.password : '' });
  return config;
}

export class AddedRegistries {
  private readonly sessions = new Map<string, RegistrySession>();
  private readonly embedded: RegistrySession | undefined;

  constructor(
    private readonly store: RegistryConfigStore,
    embeddedUrl: string,
  ) {
    if (embeddedUrl)
      this.embedded = new RegistrySession({
        id: EMBEDDED_REGISTRY,
        name: 'Embedded (svc-registry)',
        url: new URL(embeddedUrl).origin,
        auth: 'none',
      });
  }

  list(): RegistrySummary[] {
    const added = this.store.readRegistries().map((c) => summaryOf(c, false));
    return this.embedded ? [summaryOf(this.embedded.config, true), ...added] : added;
  }

  /** Adds a registry after checking that it answers /v2/ with the credentials given. */
  async add(body: unknown): Promise<RegistrySummary> {
    const config = parseRegistrySpec(body, randomBytes(6).toString('hex'));
    if (this.list().some((r) => r.name === config.name))
      throw new RegistryRequestError(409, `a registry named ${config.name} already exists`);
    await new RegistrySession(config).check(AbortSignal.timeout(10_000));
    this.store.writeRegistries([...this.store.readRegistries(), config]);
    return summaryOf(config, false);
  }

  remove(id: string): void {
    if (id === EMBEDDED_REGISTRY)
      throw new RegistryRequestError(400, 'the embedded registry cannot be removed');
    const registries = this.store.readRegistries();
    if (!registries.some((r) => r.id === id)) throw new RegistryRequestError(404, `no such registry: ${id}`);
    this.store.writeRegistries(registries.filter((r) => r.id !== id));
    this.sessions.delete(id);
  }

  /** The session of registry `id` (tokens kept between calls); a 404 error when there is none. */
  session(id: string): RegistrySession {
    if (id === EMBEDDED_REGISTRY && this.embedded) return this.embedded;
    const known = this.sessions.get(id);
    if (known) return known;
    const config = this.store.readRegistries().find((r) => r.id === id);
    if (!config) throw new RegistryRequestError(404, `no such registry: ${id}`);
    const session = new RegistrySession(config);
    this.sessions.set(id, session);
    return session;
  }
}

function summaryOf(c: RegistryConfig, embedded: boolean): RegistrySummary {
  const summary: RegistrySummary = {
    id: c.id,
    name: c.name,
    url: c.url,
    host: new URL(c.url).host,
    auth: c.auth,
    embedded,
  };
  if (c.username) summary.username = c.username;
  return summary;
}
