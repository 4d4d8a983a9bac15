// Starts and watches the servers the app stands on (svcd and svc-registry), and reports every
// state change as one event stream. Plain Node: no Electron, so tests and web mode use it too.
import { EventEmitter } from 'node:events';
import { ManagedService, type ServiceSpec } from './managed-service';
import { defaultRestartPolicy, type RestartPolicy, type ServiceState } from './service-state';

/** The longest a service waits for the one before it to be ready before starting anyway. */
const START_HEAD_START_MS = 3000;
/**
 * And how long after the one before is up: the screens' first requests to the engine come then,
 * and a Node server loading beside them (the registry's takes ~0.3 s of CPU) slows them.
 */
const START_AFTER_READY_MS = 1000;

export class Supervisor extends EventEmitter<{ state: [ServiceState] }> {
  private readonly services = new Map<string, ManagedService>();
  private readonly policy: RestartPolicy;
  private stopped = false;

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

  /**
   * Starts every service; resolves once each is up, failed or still retrying its first start.
   * One after the other, in the order given (the engine first), each START_AFTER_READY_MS after
   * the one before is ready or once it has had START_HEAD_START_MS: Node servers loading at once share a small machine's
   * cores with the window, and the screens wait for the engine, not for the registry.
   */
  async start(): Promise<void> {
    this.stopped = false;
    const started: Promise<void>[] = [];
    const services = [...this.services.values()];
    for (const [i, s] of services.entries()) {
      // A stop while an earlier one was starting: the later ones are not started after it.
      if (this.stopped) break;
      const start = s.start();
      started.push(start);
      if (i === services.length - 1) break;
      const timers: NodeJS.Timeout[] = [];
      const pause = (ms: number) => new Promise((r) => timers.push(setTimeout(r, ms)));
      await Promise.race([start.then(() => pause(START_AFTER_READY_MS)), pause(START_HEAD_START_MS)]);
      timers.forEach(clearTimeout);
    }
    await Promise.all(started);
  }

  async restart(name: string): Promise<boolean> {
    const service = this.services.get(name);
    if (!service) return false;
    await service.restart();
    return true;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all([...this.services.values()].map((s) => s.stop()));
  }
}
