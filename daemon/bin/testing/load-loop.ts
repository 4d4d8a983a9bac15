// One strand of a load: an iteration repeated until stopped. An iteration catches its own faults
// (a killed server answers nothing, or 5xx while it comes back) and says whether it went through;
// what must never happen whatever the fault (a lost container, a lost upload) goes to `problems`.

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class LoadLoop {
  /** Iterations that went through without a fault. */
  successes = 0;
  faults = 0;
  /** Set when an iteration could not settle what it left (its server never came back). */
  private failure?: Error;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    readonly name: string,
    private readonly iteration: () => Promise<boolean>,
  ) {}

  start(): void {
    this.stopping = false;
    this.running ??= this.run().finally(() => (this.running = undefined));
  }

  private async run(): Promise<void> {
    while (!this.stopping && !this.failure) {
      const ok = await this.iteration().catch((err: Error) => void (this.failure = err));
      if (ok) this.successes++;
      else if (!this.failure) {
        this.faults++;
        await sleep(200);
      }
    }
  }

  /**
   * Lets the current iteration finish (it settles whatever it left uncertain), then stops. An
   * iteration still under way after `boundMs` is a hang, reported rather than waited for: the
   * run's cleanup must go on.
   */
  async stop(boundMs = 180_000): Promise<void> {
    this.stopping = true;
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.name}: an iteration did not end within ${boundMs / 1000} s`)),
        boundMs,
      );
    });
    try {
      await Promise.race([this.running, bound]);
    } finally {
      clearTimeout(timer);
    }
  }

  throwIfFailed(): void {
    if (this.failure) throw this.failure;
  }

  /** Resolves once one more iteration has gone through; throws if none does within `boundMs`. */
  async progress(boundMs = 120_000): Promise<void> {
    const mark = this.successes;
    const deadline = Date.now() + boundMs;
    while (this.successes === mark) {
      this.throwIfFailed();
      if (Date.now() > deadline) throw new Error(`${this.name}: no iteration went through in ${boundMs} ms`);
      await sleep(50);
    }
  }
}

/**
 * Retries `attempt` (a thrown error or undefined is no answer yet) while a killed server comes
 * back; the bound only keeps a broken run from hanging.
 */
export async function untilAnswered<T>(
  what: string,
  attempt: () => Promise<T | undefined>,
  boundMs = 120_000,
): Promise<T> {
  const deadline = Date.now() + boundMs;
  let last: unknown;
  for (;;) {
    const value = await attempt().catch((err: unknown) => void (last = err));
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`no answer for ${what} in ${boundMs} ms (${String(last)})`);
    await sleep(200);
  }
}

/** A seeded generator (mulberry32), so a failing run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
