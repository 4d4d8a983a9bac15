// Looking a registry up without pulling: GET /images/search (the V1 search endpoint where the
// registry has one, else its V2 catalog filtered by the term) and GET /distribution/{name}/json
// (a reference resolved to its manifest's descriptor and platforms, with the pull's client).
import { InvalidParameterError } from '../../api/errors';
import type { DistributionInspect, ImageSearchRequest, ImageSearchResult } from '../../api/image-types';
import { decodeAuthConfig } from './distribution/auth-config';
import { RegistryClient } from './distribution/registry-client';
import type { TransportOptions } from './distribution/registry-client';
import type { ImageConfig } from '../../api/manifest-types';
import { parseImageAndTag, registryHost } from '../shared/reference';

/** What the lookups need of svcd's settings. */
export type LookupOptions = Pick<TransportOptions, 'insecureRegistries' | 'userAgent'>;

const defaultSearchHost = 'index.docker.io';

/** `host/rest` when the term names a registry (a dot, a port or localhost before the first slash). */
function splitTerm(term: string): { host: string; query: string; qualified: boolean } {
  const slash = term.indexOf('/');
  const first = slash < 0 ? '' : term.slice(0, slash);
  if (first && (/[.:]/.test(first) || first === 'localhost')) {
    return { host: first, query: term.slice(slash + 1), qualified: true };
  }
  return { host: defaultSearchHost, query: term, qualified: false };
}

function boolFilter(filters: Map<string, string[]>, name: string): boolean | undefined {
  const value = filters.get(name)?.[0];
  if (value === undefined) return undefined;
  if (value !== 'true' && value !== 'false')
    throw new InvalidParameterError(`Invalid filter '${name}=${value}'`);
  return value === 'true';
}

function checkFilters(filters: Map<string, string[]>): (r: ImageSearchResult) => boolean {
  for (const key of filters.keys()) {
    if (!['is-official', 'is-automated', 'stars'].includes(key))
      throw new InvalidParameterError(`Invalid filter '${key}'`);
  }
  const official = boolFilter(filters, 'is-official');
  const automated = boolFilter(filters, 'is-automated');
  const starsText = filters.get('stars')?.[0];
  if (starsText !== undefined && !/^\d+$/.test(starsText))
    throw new InvalidParameterError(`Invalid filter 'stars=${starsText}'`);
  const stars = starsText === undefined ? 0 : Number(starsText);
  return (r) =>
    (official === undefined || r.is_official === official) &&
    (automated === undefined || r.is_automated === automated) &&
    r.star_count >= stars;
}

/** A V1 search result with Docker's field types, whatever the registry sent. */
function resultOf(raw: unknown, prefix: string): ImageSearchResult {
  const r = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const automated = r.is_automated === true || r.is_trusted === true;
  return {
    name: `${prefix}${typeof r.name === 'string' ? r.name : ''}`,
    description: typeof r.description === 'string' ? r.description : '',
    star_count: typeof r.star_count === 'number' ? r.star_count : 0,
    is_official: r.is_official === true,
    is_automated: automated,
    is_trusted: automated,
  };
}

export async function searchRegistry(
  req: ImageSearchRequest,
  options: LookupOptions,
): Promise<ImageSearchResult[]> {
  if (req.limit < 1 || req.limit > 100)
    throw new InvalidParameterError(`Limit ${req.limit} is outside the range of [1, 100]`);
  const keep = checkFilters(req.filters);
  const { host, query, qualified } = splitTerm(req.term);
  const client = new RegistryClient({ ...options, host, auth: decodeAuthConfig(req.auth) });
  const prefix = qualified ? `${host}/` : '';
  const v1 = await client.searchV1(query, req.limit, req.signal);
  let results: ImageSearchResult[];
  if (v1) {
    results = v1.map((r) => resultOf(r, prefix));
  } else {
    const needle = query.toLowerCase();
    results = (await client.listCatalog(req.signal))
      .filter((repo) => repo.toLowerCase().includes(needle))
      .map((repo) => resultOf({ name: repo }, prefix));
  }
  return results.filter(keep).slice(0, req.limit);
}

export async function inspectDistribution(
  name: string,
  auth: string | undefined,
  options: LookupOptions,
  signal?: AbortSignal,
): Promise<DistributionInspect> {
  const ref = parseImageAndTag(name);
  const client = new RegistryClient({
    ...options,
    host: registryHost(ref.domain),
    auth: decodeAuthConfig(auth),
  });
  const { descriptor, parsed } = await client.getManifest(
    ref.path,
    ref.digest ?? ref.tag ?? 'latest',
    signal,
  );
  const Descriptor = { mediaType: descriptor.mediaType, digest: descriptor.digest, size: descriptor.size };
  if (parsed.kind === 'index') {
    const Platforms = parsed.index.manifests.flatMap((m) => (m.platform ? [{ ...m.platform }] : []));
    return { Descriptor, Platforms };
  }
  if (parsed.kind === 'schema1') {
    return { Descriptor, Platforms: [{ architecture: parsed.schema1.architecture ?? '', os: 'linux' }] };
  }
  const config = JSON.parse(
    (await client.readBlob(ref.path, parsed.manifest.config, signal)).toString('utf8'),
  ) as ImageConfig & {
    variant?: string;
    'os.version'?: string;
  };
  return {
    Descriptor,
    Platforms: [
      {
        architecture: config.architecture ?? '',
        os: config.os ?? '',
        ...(config.variant ? { variant: config.variant } : {}),
        ...(config['os.version'] ? { 'os.version': config['os.version'] } : {}),
      },
    ],
  };
}
