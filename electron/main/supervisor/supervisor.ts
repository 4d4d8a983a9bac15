// Starts and watches the servers the app stands on (svcd and svc-registry), and reports every
// state change as one event stream. Plain Node: no Electron, so tests and web mode use it too.
import { EventEmitter } from 'node:events';
import { ManagedService, type ServiceSpec } from './managed-service';
import { defaultRestartPolicy, type RestartPolicy, type ServiceState } from './service-state';

export class Supervisor extends EventEmitter<{ state: [ServiceState] }> {
  private readonly services = new Map<string, ManagedService>();
  private readonly policy: RestartPolicy;

  constructor(specs: ServiceSpec[], policy: Partial<RestartPolicy> = {}) {
    super();
    this.policy = { ...defaultRestartPolicy, ...policy };
    for (const spec of specs) this.add(spec);
  }

  private add(spec: ServiceSpec): ManagedService {
    const service = new ManagedService(spec, this.policy);
    service.on('state', (s) => this.emit('state', s));
    this.services.set(spec.name, service);
    return service;
  }

  /** Stops the service of that name (when it is ours) and starts this spec in its place. */
  async replace(spec: ServiceSpec): Promise<void> {
    const old = this.services.get(spec.name);
    if (old) {
      await old.stop();
      old.removeAllListeners('state');
    }
    await this.add(spec).start();
  }

  states(): ServiceState[] {
    return [...this.services.values()].map((s) => s.state);
  }

  state(name: string): ServiceState | undefined {
    return this.services.get(name)?.state;
  }

  /** Starts every service; resolves once each is up, failed or still retrying its first start. */
  async start(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.start()));
  }

  async restart(name: string): Promise<boolean> {
    const service = this.services.get(name);
    if (!service) return false;
    await service.restart();
    return true;
  }

  async stop(): Promise<void> {
    await Promise.all([...this.services.values()].map((s) => s.stop()));
  }
}
