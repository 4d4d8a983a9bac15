// Chromium fails every request in flight when the host's networks change (ERR_NETWORK_CHANGED),
// and containers change them as they start and stop (a veth, a bridge's address). Such a failure
// says nothing about the gateway or the engine: what can be asked again is asked again.

/**
 * A request that got no answer at all, rather than an answer or an abort: fetch's TypeError, as
 * the gateway client passes it on (an ApiError of status 0), or a stream's read cut on the way.
 */
export function isNetworkFailure(err: unknown): boolean {
  return err instanceof TypeError || (err instanceof Error && (err as { status?: unknown }).status === 0);
}

const pause = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
  });

/**
 * Runs `attempt`, and again after each of `pauses` (ms) while `retryable` says so of its error;
 * `beforeRetry` readies the next try.
 */
async function retried<T>(
  attempt: () => Promise<T>,
  retryable: (err: unknown) => boolean,
  pauses: number[],
  signal?: AbortSignal,
  beforeRetry?: () => Promise<unknown>,
): Promise<T> {
  for (let tries = 0; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      if (tries === pauses.length || signal?.aborted || !retryable(err)) throw err;
      await pause(pauses[tries], signal);
      await beforeRetry?.();
    }
  }
}

/**
 * Runs `attempt` again while it fails on the way, 0.25 s then 0.5 s later, for what may be asked
 * twice (a read; a removal where "already gone" is success).
 */
export function againAfterNetworkFailures<T>(attempt: () => Promise<T>, signal?: AbortSignal): Promise<T> {
  return retried(attempt, isNetworkFailure, [250, 500], signal);
}

/**
 * Runs `follow` (which opens a stream and reads it to its end) until `signal` aborts, opening it
 * again after a network failure: 0.25 s later, twice that after each failure in a row, at most
 * 5 s. A stream that ran for a while before it failed starts that count again. The stream's own
 * end, or any other error, is the caller's to handle and ends the following.
 */
export async function followAgainAfterNetworkFailures(
  signal: AbortSignal,
  follow: () => Promise<void>,
): Promise<void> {
  for (let failures = 0; ; failures++) {
    const started = Date.now();
    try {
      return await follow();
    } catch (err) {
      if (signal.aborted || !isNetworkFailure(err)) throw err;
      if (Date.now() - started > 10_000) failures = 0;
      await pause(Math.min(5000, 250 * 2 ** failures), signal);
      if (signal.aborted) throw err;
    }
  }
}

/**
 * Loads a chunk (a screen, the palette), again up to twice more when its load fails, whatever
 * the error: a stylesheet's failure is the loader's own Error, not fetch's TypeError. The
 * failed stylesheets are fetched again after the pause, as a stylesheet's failure may land after
 * the script's.
 */
export function loadChunk<T>(load: () => Promise<T>): Promise<T> {
  return retried(load, () => true, [500, 1000], undefined, reloadFailedStylesheets);
}

/**
 * Each stylesheet that failed, fetched again by a fresh copy of its link: the chunk loader
 * never asks twice for one it has asked for, so the next attempt would go on without it.
 */
function reloadFailedStylesheets(): Promise<unknown> {
  const failed = document.querySelectorAll<HTMLLinkElement>('link[rel="stylesheet"][data-failed]');
  return Promise.all(
    [...failed].map(
      (link) =>
        new Promise((settled) => {
          const fresh = link.cloneNode() as HTMLLinkElement;
          delete fresh.dataset.failed;
          fresh.addEventListener('load', settled);
          fresh.addEventListener('error', settled);
          link.replaceWith(fresh);
        }),
    ),
  );
}

/** Marks the stylesheets whose load failed (their error event does not bubble, so: capture). */
export function markFailedStylesheets(): void {
  document.addEventListener(
    'error',
    (e) => {
      if (e.target instanceof HTMLLinkElement && e.target.rel === 'stylesheet') e.target.dataset.failed = '';
    },
    true,
  );
}
