// What the services router needs from the engine.
import type { LogsStream } from '../../../api/container-stream-types';
import type {
  ServiceCreateResponse,
  ServiceListRequest,
  ServiceLogsRequest,
  ServiceSpec,
  ServiceUpdateRequest,
  SwarmService,
} from '../../../api/swarm-types';

export interface ServicesBackend {
  create(spec: ServiceSpec, auth?: string): Promise<ServiceCreateResponse>;
  list(req: ServiceListRequest): SwarmService[];
  inspect(ref: string, insertDefaults: boolean): SwarmService;
  update(req: ServiceUpdateRequest): Promise<{ Warnings: string[] | null }>;
  remove(ref: string): Promise<void>;
  logs(ref: string, req: ServiceLogsRequest): LogsStream;
}
