// Wire shapes of the exec endpoints (POST /containers/{id}/exec, GET /exec/{id}/json).

export interface ExecCreateBody {
  AttachStdin?: boolean;
  AttachStdout?: boolean;
  AttachStderr?: boolean;
  DetachKeys?: string;
  /** docker-py's spelling of DetachKeys; dockerd's JSON decoder does not mind the case. */
  detachKeys?: string;
  Tty?: boolean;
  Cmd?: string | string[] | null;
  Env?: string[] | null;
  WorkingDir?: string;
  User?: string;
  Privileged?: boolean;
}

/** How the request's API version reads an exec create. */
/** What POST /containers/{id}/exec answers: the new exec instance's ID. */
export interface ExecCreateResponse {
  Id: string;
}

export interface ExecCreateOptions {
  /** Env and WorkingDir are read only from the API versions that have them. */
  env: boolean;
  workingDir: boolean;
  /** 409 for a stopped or paused container (1.21 and later; a server error before). */
  stateConflict: boolean;
}

/** POST /exec/{id}/start. Framing follows this Tty, not the create's, as dockerd does. */
export interface ExecStartBody {
  Detach?: boolean;
  Tty?: boolean;
  /** Overrides the create's detach keys for this session. */
  DetachKeys?: string;
}

export interface ExecProcessConfig {
  tty: boolean;
  entrypoint: string;
  arguments: string[];
  privileged: boolean;
  user?: string;
}

export interface ExecInspect {
  ID: string;
  Running: boolean;
  /** null until the process has exited. */
  ExitCode: number | null;
  ProcessConfig: ExecProcessConfig;
  OpenStdin: boolean;
  OpenStderr: boolean;
  OpenStdout: boolean;
  CanRemove: boolean;
  ContainerID: string;
  DetachKeys: string;
  /** Host PID of the process (API 1.25 and later); 0 before it starts. */
  Pid?: number;
}
