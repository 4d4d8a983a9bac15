// What the system router needs from the engine.
import type { InfoResponse, SystemDfResponse, VersionResponse } from '../../../api/system-types';

export interface SystemBackend {
  version(): Promise<VersionResponse>;
  info(): Promise<InfoResponse>;
  diskUsage(): Promise<SystemDfResponse>;
}
