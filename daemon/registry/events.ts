// Registry events (push, pull, delete) in Distribution's notification envelope: one JSON line
// per event in the log file, and batches POSTed to the notification endpoint when configured.
import { appendFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { request as httpsRequest } from 'node:https';

export interface RegistryEvent {
  id: string;
  timestamp: string;
  action: 'push' | 'pull' | 'delete' | 'mount';
  target: {
    mediaType?: string;
    size?: number;
    digest?: string;
    repository: string;
    tag?: string;
    url?: string;
  };
  request: { id: string; addr: string; host: string; method: string; useragent: string };
  actor: { name?: string };
  source: { addr: string; instanceID: string };
}

export type EventInput = Pick<RegistryEvent, 'action' | 'target' | 'request' | 'actor'>;

const envelopeType = 'application/vnd.docker.distribution.events.v1+json';
const maxQueued = 1000;
const retries = 3;

export class EventSink {
  private readonly instanceID = randomUUID();
  private readonly queue: RegistryEvent[] = [];
  private sending = false;
  private logWrites: Promise<void> = Promise.resolve();

  constructor(
    private readonly options: { log?: string; endpoint?: string; sourceAddr: string },
    private readonly warn: (message: string) => void = () => undefined,
  ) {}

  get enabled(): boolean {
    return Boolean(this.options.log || this.options.endpoint);
  }

  emit(input: EventInput): void {
    if (!this.enabled) return;
    const event: RegistryEvent = {
      id: randomUUID(),
      timestamp: new Date().toISOString(),
      ...input,
      source: { addr: this.options.sourceAddr, instanceID: this.instanceID },
    };
    const log = this.options.log;
    if (log) {
      this.logWrites = this.logWrites
        .then(() => appendFile(log, JSON.stringify(event) + '\n'))
        .catch((err) => this.warn(`event log: ${(err as Error).message}`));
    }
    if (this.options.endpoint) {
      if (this.queue.length >= maxQueued) this.queue.shift();
      this.queue.push(event);
      void this.drain();
    }
  }

  /** Resolves when the log is written and the endpoint queue is empty (or given up on). */
  async flush(): Promise<void> {
    await this.logWrites;
    while (this.sending) await new Promise((r) => setTimeout(r, 20));
  }

  private async drain(): Promise<void> {
    if (this.sending) return;
    this.sending = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, 50);
        let attempt = 0;
        while (!(await this.post(batch)) && ++attempt < retries) {
          await new Promise((r) => setTimeout(r, 200 * attempt));
        }
        if (attempt >= retries) this.warn(`notification endpoint: dropped ${batch.length} events`);
      }
    } finally {
      this.sending = false;
    }
  }

  private post(events: RegistryEvent[]): Promise<boolean> {
    const url = new URL(this.options.endpoint as string);
    const body = JSON.stringify({ events });
    const send = url.protocol === 'https:' ? httpsRequest : request;
    return new Promise((resolve) => {
      const req = send(
        url,
        {
          method: 'POST',
          timeout: 5000,
          headers: { 'Content-Type': envelopeType, 'Content-Length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          resolve((res.statusCode ?? 500) < 300);
        },
      );
      req.on('timeout', () => req.destroy());
      req.on('error', () => resolve(false));
      req.end(body);
    });
  }
}
