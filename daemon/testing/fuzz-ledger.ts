// The fuzz suites' request runner and their ledger: every request is sent with a bounded wait
// (a streaming answer is cut once its status is known), its outcome counted per status class,
// and each 5xx and each request left unanswered kept with the request that caused it, so a
// failure lists exactly what to replay.
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { readFileSync } from 'node:fs';

export interface FuzzCase {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** What the case is about, for the listing (e.g. the route pattern or the archive's name). */
  note: string;
}

export interface FuzzOutcome {
  /** Undefined when no status line came within the wait. */
  status?: number;
  /** The start of the answer's body (at most 300 bytes). */
  body: string;
  /**
   * The connection ended with no status: the server cut it (as node does after its 431 for a
   * head over 16 KiB, racing our write of the body) rather than leaving us waiting.
   */
  closed?: boolean;
}

export type FuzzTarget = { socketPath: string } | { host: string; port: number };

/** Sends one case, waiting at most `waitMs`; once a status is known, the body gets 500 ms more. */
export function sendCase(target: FuzzTarget, c: FuzzCase, waitMs: number): Promise<FuzzOutcome> {
  return new Promise((resolve) => {
    let status: number | undefined;
    let body = '';
    let done = false;
    const finish = (closed = false) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      req.destroy();
      resolve({ status, body: body.slice(0, 300), closed: closed && status === undefined });
    };
    let timer = setTimeout(() => finish(), waitMs);
    const headers: Record<string, string | number> = { ...c.headers };
    if (c.body !== undefined) headers['Content-Length'] ??= Buffer.byteLength(c.body);
    const req = httpRequest(
      { ...target, method: c.method, path: c.path, headers },
      (res: IncomingMessage) => {
        status = res.statusCode;
        // A stream (logs, attach, events) may never end: its status is what the ledger needs.
        clearTimeout(timer);
        timer = setTimeout(() => finish(), 500);
        res.on('data', (d: Buffer) => {
          if (body.length < 300) body += d.toString('utf8');
        });
        res.on('end', () => finish());
        res.on('error', () => finish());
      },
    );
    req.on('error', () => finish(true));
    req.end(c.body);
  });
}

/** `text` cut in the middle to `max` characters, so both ends stay readable. */
function elide(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 60)}…${text.slice(-59)}`;
}

export interface LedgerEntry {
  case: FuzzCase;
  outcome: FuzzOutcome;
}

/** The resident set of a process, in MiB, from /proc. */
export function rssMiB(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
  return Math.round(Number(kb) / 1024);
}

export class FuzzLedger {
  readonly byClass = new Map<string, number>();
  readonly serverErrors: LedgerEntry[] = [];
  readonly unanswered: LedgerEntry[] = [];
  sent = 0;

  /**
   * `allowed5xx` says whether a 5xx is the right answer for this case (a documented exception);
   * `mayStream` whether it may legitimately still be answering when the wait ends.
   */
  record(c: FuzzCase, outcome: FuzzOutcome, allowed5xx = false, mayStream = false): void {
    this.sent++;
    const cls =
      outcome.status !== undefined
        ? `${Math.floor(outcome.status / 100)}xx`
        : outcome.closed
          ? 'cut'
          : 'none';
    this.byClass.set(cls, (this.byClass.get(cls) ?? 0) + 1);
    if (cls === 'none' && !mayStream) this.unanswered.push({ case: c, outcome });
    if (outcome.status !== undefined && outcome.status >= 500 && !allowed5xx) {
      this.serverErrors.push({ case: c, outcome });
    }
  }

  summary(): string {
    const classes = [...this.byClass].sort().map(([k, v]) => `${k}=${v}`);
    return `${this.sent} requests (${classes.join(' ')}), ${this.serverErrors.length} unexpected 5xx, ${this.unanswered.length} unanswered`;
  }

  /** Fails listing every 5xx and every request left unanswered, with what caused it. */
  assertClean(): void {
    const problems = [
      ...(this.serverErrors.length > 0 ? [`5xx for client errors:\n${this.listing(this.serverErrors)}`] : []),
      ...(this.unanswered.length > 0 ? [`unanswered:\n${this.listing(this.unanswered)}`] : []),
    ];
    if (problems.length > 0) throw new Error(`${this.summary()}\n${problems.join('\n')}`);
  }

  /** The failing cases, one a line, shortened so thousands of them stay readable. */
  listing(entries: LedgerEntry[], max = 40): string {
    const line = ({ case: c, outcome }: LedgerEntry) => {
      const body =
        c.body === undefined
          ? ''
          : Buffer.isBuffer(c.body)
            ? ` body=<${c.body.length} bytes>`
            : ` body=${JSON.stringify(c.body.slice(0, 120))}`;
      return `${outcome.status ?? 'no answer'} ${c.method} ${elide(c.path, 200)} [${c.note}]${body} -> ${JSON.stringify(outcome.body)}`;
    };
    const more = entries.length > max ? `\n... and ${entries.length - max} more` : '';
    return entries.slice(0, max).map(line).join('\n') + more;
  }
}
