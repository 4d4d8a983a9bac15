// The API versions svcd serves, and the one table of behaviours that depend on the version.

export const MIN_API_VERSION = '1.19';
export const MAX_API_VERSION = '1.41';

/** A parsed `major.minor` API version. */
export interface ApiVersion {
  major: number;
  minor: number;
  text: string;
}

export function parseApiVersion(text: string): ApiVersion | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(text);
  if (!m) return undefined;
  return { major: Number(m[1]), minor: Number(m[2]), text };
}

export function compareVersions(a: ApiVersion | string, b: ApiVersion | string): number {
  const pa = typeof a === 'string' ? parseApiVersion(a) : a;
  const pb = typeof b === 'string' ? parseApiVersion(b) : b;
  if (!pa || !pb) throw new Error(`not an API version: ${String(a)} / ${String(b)}`);
  return pa.major - pb.major || pa.minor - pb.minor;
}

export const minApiVersion = parseApiVersion(MIN_API_VERSION) as ApiVersion;
export const maxApiVersion = parseApiVersion(MAX_API_VERSION) as ApiVersion;

/**
 * Every behaviour that changed between API versions, named, with the first version that has the
 * newer behaviour. Code asks `supports(version, 'jsonErrors')` instead of comparing numbers inline.
 */
export const versionFeatures = {
  /** Errors are JSON `{"message": …}` instead of plain text. */
  jsonErrors: '1.24',
  /** HEAD /_ping is answered. */
  headPing: '1.40',
  /** Create without any command (none given, none in the image) is refused with 400. */
  createRequiresCommand: '1.24',
  /** A dotted Hostname is no longer split into Hostname and Domainname. */
  hostnameNotSplit: '1.24',
  /** Hostname must be an RFC 1123 name (older clients could send any the kernel takes). */
  hostnameChecked: '1.24',
  /** HostConfig.AutoRemove is honoured (before, the client removed the container itself). */
  autoRemove: '1.25',
  /** POST /containers/{id}/start no longer takes a HostConfig body. */
  startWithoutHostConfig: '1.24',
  /** Attaching to or exec-ing in a paused container answers 409. */
  pausedConflict: '1.22',
  /** Exec in a stopped or paused container answers 409. */
  execStateConflict: '1.21',
  /** Exec create takes Env. */
  execEnv: '1.25',
  /** Exec create takes WorkingDir. */
  execWorkingDir: '1.35',
  /** Exec inspect reports Pid. */
  execPid: '1.25',
  /** Logs take `until`. */
  logsUntil: '1.35',
  /** Logs take `details`. */
  logsDetails: '1.24',
  /** attach/ws sends binary frames instead of text frames. */
  wsBinaryFrames: '1.28',
  /** wait takes `condition`. */
  waitCondition: '1.30',
  /** wait answers an Error object. */
  waitError: '1.34',
  /** stats report one network object per interface (`networks`) instead of a single `network`. */
  statsNetworks: '1.21',
  /** stats report online_cpus. */
  statsOnlineCpus: '1.27',
  /** DELETE /networks/{id} answers 204 instead of 200. */
  networkRemoveNoContent: '1.23',
  /** DELETE /volumes/{name} takes `force`. */
  volumeRemoveForce: '1.25',
  /** stats accept one-shot. */
  statsOneShot: '1.41',
  /** GET /images/json takes the singular `filter` parameter until this version. */
  imagesFilterParamRemoved: '1.41',
  /** A build's image ID is sent as an aux message before its last lines. */
  buildAuxImageId: '1.30',
} as const;

export type VersionFeature = keyof typeof versionFeatures;

export function supports(version: ApiVersion, feature: VersionFeature): boolean {
  return compareVersions(version, versionFeatures[feature]) >= 0;
}

/** How a container's create body (or a legacy start's HostConfig) is read. */
export interface CreateBehaviours {
  splitDottedHostname: boolean;
  checkHostname: boolean;
  /** A create without any command (none given, none in the image) is refused. */
  requireCommand: boolean;
  honourAutoRemove: boolean;
}

export function createBehaviours(version: ApiVersion): CreateBehaviours {
  return {
    splitDottedHostname: !supports(version, 'hostnameNotSplit'),
    checkHostname: supports(version, 'hostnameChecked'),
    requireCommand: supports(version, 'createRequiresCommand'),
    honourAutoRemove: supports(version, 'autoRemove'),
  };
}

/** The newest API's reading: what svcd uses for the specs it builds itself. */
export const currentCreateBehaviours = createBehaviours(maxApiVersion);
