// What the desktop gateway's own API (/api/state, /api/settings) answers: written by the Electron
// main process, read by the renderer, so both sides import these types from here.

export type ServiceStatus = 'starting' | 'up' | 'restarting' | 'down' | 'failed';

/** What the UI and the tray know about one supervised server. */
export interface ServiceState {
  name: string;
  status: ServiceStatus;
  /** Why the service is not up (exit code and last stderr line, timeout, give-up…). */
  reason?: string;
  pid?: number;
  /** True when we found the server already answering and did not start it ourselves. */
  adopted: boolean;
  /** Never started by the app, only watched: the system engine (its log is the system's). */
  external?: boolean;
  /** Restarts after a crash since the supervisor started. */
  restarts: number;
  /** Epoch ms of the last status change. */
  since: number;
  logFile: string;
  /** Where the server is reached: unix socket path or base URL. */
  endpoint: string;
}

/** CPU time and resident memory of one process, from /proc. */
export interface ProcUsage {
  pid: number;
  cpuSeconds: number;
  rssBytes: number;
}

/** GET /api/state: the supervised servers, and what the app and the servers cost. */
export interface DesktopState {
  services: ServiceState[];
  usage: Record<string, ProcUsage | undefined>;
}

/** GET/PUT /api/settings: the app's own preferences. */
export interface DesktopSettings {
  /** Stop running containers when the app quits; off keeps them running (svcd re-attaches). */
  stopContainersOnQuit: boolean;
}

/**
 * Which engine the app stands on: the system's svcd (run by root, its socket shared with the
 * `svc` group), or one the app starts itself: rootless as a normal user, rootful as root.
 */
export type EngineMode = 'system' | 'rootless' | 'rootful';

/** The user's pick in Settings; `auto` takes the system engine when it answers. */
export type EngineModePreference = 'auto' | EngineMode;

/** GET/PUT /api/engine-mode: the engine in use, why, and what may be picked instead. */
export interface EngineChoice {
  mode: EngineMode;
  preference: EngineModePreference;
  /** The engine's unix socket. */
  socket: string;
  /** Why this mode, in a sentence for the user. */
  reason: string;
  /** The modes this user can pick (rootful only as root, rootless only when not). */
  available: EngineMode[];
  systemSocket: string;
  /** Whether the system socket answered when the choice was made; if not, why. */
  system: { reachable: boolean; detail: string };
}

/** How the gateway reaches an engine the user added: the scheme of its endpoint. */
export type AddedEngineKind = 'unix' | 'tcp' | 'ssh';

/**
 * POST /api/engines: an engine to add. `tls` names files the main process reads when it
 * connects (tcp only); their paths and contents never come back to the renderer.
 */
export interface AddEngineRequest {
  name: string;
  /** unix:///path/docker.sock, tcp://host:port or ssh://[user@]host[:port] */
  endpoint: string;
  tls?: { ca?: string; cert?: string; key?: string };
}

/** GET /api/engines: what the renderer may know of an added engine (no credentials). */
export interface EngineSummary {
  id: string;
  name: string;
  kind: AddedEngineKind;
  endpoint: string;
  /** Whether TLS client certificates are configured (never which files). */
  tls: boolean;
}

/** GET /api/engines/{id}/status: the engine's answer to /version, or why there is none. */
export interface EngineStatus {
  id: string;
  up: boolean;
  version?: string;
  apiVersion?: string;
  os?: string;
  reason?: string;
}

/** How the app signs in to a registry added in the registry browser. */
export type RegistryAuthKind = 'none' | 'basic' | 'token';

/**
 * POST /api/registries: a V2 registry to add. `basic` sends the credentials with each request;
 * `token` trades them at the token server a 401's Bearer challenge names. The password stays in
 * the main process.
 */
export interface AddRegistryRequest {
  name: string;
  /** http(s)://host[:port] */
  url: string;
  auth: RegistryAuthKind;
  username?: string;
  password?: string;
}

/** GET /api/registries: what the renderer may know of a registry (no password). */
export interface RegistrySummary {
  id: string;
  name: string;
  url: string;
  /** `host[:port]`, as image references name the registry. */
  host: string;
  auth: RegistryAuthKind;
  username?: string;
  /** The app's own svc-registry. */
  embedded: boolean;
}

/** POST /api/registries/{id}/pull: the registry's repository:tag into an engine. */
export interface RegistryPullRequest {
  engine: string;
  repository: string;
  tag: string;
}

/** POST /api/registries/{id}/push: an engine's image, tagged repository:tag in the registry. */
export interface RegistryPushRequest {
  engine: string;
  image: string;
  repository: string;
  tag: string;
}

/** POST /api/registries/copy: an image from one registry to another (or the same). */
export interface RegistryCopyRequest {
  from: { registry: string; repository: string; reference: string };
  to: { registry: string; repository: string; tag: string };
}

/** GET /api/compose: whether docker-compose is installed where the app runs. */
export interface ComposeTool {
  available: boolean;
  version?: string;
}

/** POST /api/compose/{up,down}: a compose file's project on one engine ('local' or an added id). */
export interface ComposeRequest {
  engine: string;
  project: string;
  /** The compose file's text. */
  file: string;
  /** down: its volumes too (`down -v`). */
  volumes?: boolean;
}

export interface ComposeResult {
  exitCode: number;
  output: string;
}
