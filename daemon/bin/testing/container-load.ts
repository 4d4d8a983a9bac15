// The containers side of the soak's load, with what it recorded, so that after each restart the
// soak can tell a lost or duplicated container from an operation that was in flight at the kill.
import { request } from 'node:http';
import { FrameParser } from '../../server/streams/stdcopy';
import type { SvcdInstance } from '../../testing/svcd-harness';
import { LoadLoop, untilAnswered } from './load-loop';

const LABEL = 'svc.soak';
/** How many stopped containers the churn keeps around (so kills find some in every state). */
const KEPT = 6;

export interface ContainerRecord {
  name: string;
  /** Known once a create answered 201, or a removal proved the container existed. */
  id?: string;
  state: 'creating' | 'created' | 'removing' | 'removed';
}

/** The frames' stdout of an attach/exec/logs answer. */
function stdoutOf(body: Buffer): string {
  return new FrameParser()
    .push(body)
    .map((f) => f.payload.toString())
    .join('');
}

/**
 * Create, start, exec, stop, delete — every other container is kept stopped for a while.
 * A fault leaves the container uncertain until a forced delete settles it: 204 proves it existed,
 * 404 that it did not, unless its create had been answered, which is a container lost.
 */
export class ContainerChurn {
  readonly records = new Map<string, ContainerRecord>();
  readonly problems: string[] = [];
  created = 0;
  removed = 0;
  execs = 0;
  private n = 0;
  private readonly kept: ContainerRecord[] = [];
  readonly loop = new LoadLoop('container churn', () => this.iteration());

  constructor(
    private readonly svcd: SvcdInstance,
    private readonly prefix: string,
  ) {}

  private expect(res: { status: number; text(): string }, status: number, what: string): void {
    if (res.status !== status) throw new Error(`${what}: ${res.status} ${res.text()}`);
  }

  private async iteration(): Promise<boolean> {
    const rec: ContainerRecord = { name: `${this.prefix}-${this.n++}`, state: 'creating' };
    this.records.set(rec.name, rec);
    try {
      const created = await this.svcd.request('POST', `/containers/create?name=${rec.name}`, {
        body: {
          Image: 'busybox',
          Cmd: ['sh', '-c', 'trap "exit 0" TERM; while :; do sleep 0.1; done'],
          Labels: { [LABEL]: this.prefix },
        },
      });
      this.expect(created, 201, 'create');
      rec.id = created.json<{ Id: string }>().Id;
      rec.state = 'created';
      this.created++;
      this.expect(await this.svcd.request('POST', `/containers/${rec.id}/start`), 204, 'start');
      await this.exec(rec.id, rec.name);
      this.expect(await this.svcd.request('POST', `/containers/${rec.id}/stop?t=5`), 204, 'stop');
      if (this.n % 2 === 0) {
        this.kept.push(rec);
        if (this.kept.length <= KEPT) return true;
        return await this.remove(this.kept.shift()!);
      }
      return await this.remove(rec);
    } catch {
      await this.settle(rec);
      return false;
    }
  }

  private async exec(id: string, token: string): Promise<void> {
    const exec = await this.svcd.request('POST', `/containers/${id}/exec`, {
      body: { AttachStdout: true, AttachStderr: true, Cmd: ['echo', token] },
    });
    this.expect(exec, 201, 'exec create');
    const start = await this.svcd.request('POST', `/exec/${exec.json<{ Id: string }>().Id}/start`, {
      body: { Detach: false, Tty: false },
    });
    this.expect(start, 200, 'exec start');
    if (stdoutOf(start.body) !== `${token}\n`) throw new Error(`exec answered ${start.body.toString()}`);
    this.execs++;
  }

  private async remove(rec: ContainerRecord): Promise<boolean> {
    rec.state = 'removing';
    try {
      this.expect(await this.svcd.request('DELETE', `/containers/${rec.id}`), 204, 'delete');
      rec.state = 'removed';
      this.removed++;
      return true;
    } catch {
      await this.settle(rec);
      return false;
    }
  }

  /** A forced delete until svcd answers it: the container's fate is then known. */
  private async settle(rec: ContainerRecord): Promise<void> {
    const ref = rec.id ?? rec.name;
    const status = await untilAnswered(`the removal of ${rec.name}`, async () => {
      const res = await this.svcd.request('DELETE', `/containers/${ref}?force=1`);
      if (res.status === 204 || res.status === 404) return res.status;
      throw new Error(`${res.status} ${res.text()}`);
    });
    if (status === 404 && rec.state === 'created') {
      this.problems.push(`container ${rec.name} (${rec.id}) was created and is gone`);
    }
    if (status === 204) {
      if (rec.state === 'creating') this.created++;
      this.removed++;
    }
    rec.state = 'removed';
    const kept = this.kept.indexOf(rec);
    if (kept >= 0) this.kept.splice(kept, 1);
  }

  /** The churn's containers as svcd lists them, against what the records say must be there. */
  async check(): Promise<string[]> {
    const filters = encodeURIComponent(JSON.stringify({ label: [`${LABEL}=${this.prefix}`] }));
    const list = await this.svcd.request('GET', `/containers/json?all=1&filters=${filters}`);
    this.expect(list, 200, 'list');
    const listed = list.json<Array<{ Id: string; Names: string[] }>>();
    const out: string[] = [];
    const seen = new Set<string>();
    for (const c of listed) {
      const name = c.Names[0].slice(1);
      const rec = this.records.get(name);
      if (seen.has(name)) out.push(`container ${name} listed twice`);
      seen.add(name);
      if (!rec || rec.state !== 'created')
        out.push(`container ${name} listed, but ${rec?.state ?? 'unknown'}`);
      else if (rec.id !== c.Id) out.push(`container ${name} is ${c.Id}, created as ${rec.id}`);
    }
    for (const rec of this.records.values()) {
      if (rec.state === 'created' && !seen.has(rec.name)) out.push(`container ${rec.name} (${rec.id}) lost`);
    }
    return [...this.problems.splice(0), ...out];
  }

  /** The containers that exist (the kept ones), for the leak scan. */
  existing(): string[] {
    return [...this.records.values()].filter((r) => r.state === 'created').map((r) => r.id!);
  }

  ids(): string[] {
    return [...this.records.values()].flatMap((r) => (r.id ? [r.id] : []));
  }
}

/**
 * Containers printing numbered lines for the whole soak, each followed by a logs stream that
 * comes back after every svcd restart. `seen` is the highest number a follower received: those
 * lines had reached svcd, so they must all be in the log after any kill.
 */
export class LogWriter {
  seen = -1;
  readonly problems: string[] = [];
  private stopping = false;
  private following?: Promise<void>;
  private abort?: () => void;

  private constructor(
    private readonly svcd: SvcdInstance,
    readonly id: string,
  ) {}

  static async start(svcd: SvcdInstance, name: string): Promise<LogWriter> {
    const created = await svcd.request('POST', `/containers/create?name=${name}`, {
      body: {
        Image: 'busybox',
        Cmd: ['sh', '-c', 'i=0; while :; do echo "line $i"; i=$((i+1)); sleep 0.05; done'],
      },
    });
    if (created.status !== 201) throw new Error(`create ${name}: ${created.text()}`);
    const writer = new LogWriter(svcd, created.json<{ Id: string }>().Id);
    const started = await svcd.request('POST', `/containers/${writer.id}/start`);
    if (started.status !== 204) throw new Error(`start ${name}: ${started.text()}`);
    writer.following = writer.follow();
    return writer;
  }

  /** Follows from the first line on each connection: the numbers must come 0, 1, 2, ... */
  private async follow(): Promise<void> {
    while (!this.stopping) {
      await new Promise<void>((resolve) => {
        const req = request({
          socketPath: this.svcd.socket,
          path: `/containers/${this.id}/logs?follow=1&stdout=1&stderr=1`,
        });
        this.abort = () => req.destroy();
        const parser = new FrameParser();
        let next = 0;
        let partial = '';
        req.on('response', (res) => {
          res.on('data', (chunk: Buffer) => {
            const text =
              partial +
              parser
                .push(chunk)
                .map((f) => f.payload.toString())
                .join('');
            const lines = text.split('\n');
            partial = lines.pop()!;
            for (const line of lines) {
              if (line !== `line ${next}`)
                this.problems.push(`follow of ${this.id}: "${line}" for line ${next}`);
              this.seen = Math.max(this.seen, next++);
            }
          });
          res.on('error', () => resolve());
          res.on('end', () => resolve());
        });
        req.on('error', () => resolve());
        req.end();
      });
      if (!this.stopping) await new Promise((r) => setTimeout(r, 200));
    }
  }

  /** The log as svcd gives it now: every line up to `seenAtKill` there, in order, none twice. */
  async check(seenAtKill: number): Promise<{ lines: number; problems: string[] }> {
    const res = await this.svcd.request('GET', `/containers/${this.id}/logs?stdout=1&stderr=1`);
    if (res.status !== 200) return { lines: 0, problems: [`logs of ${this.id}: ${res.status}`] };
    const lines = stdoutOf(res.body).split('\n').slice(0, -1);
    const problems = this.problems.splice(0);
    const wrong = lines.findIndex((line, i) => line !== `line ${i}`);
    if (wrong >= 0) problems.push(`log of ${this.id}: line ${wrong} is "${lines[wrong]}"`);
    if (lines.length <= seenAtKill) {
      problems.push(
        `log of ${this.id} has ${lines.length} lines, ${seenAtKill + 1} were followed before the kill`,
      );
    }
    return { lines: lines.length, problems };
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.abort?.();
    await this.following;
  }
}
