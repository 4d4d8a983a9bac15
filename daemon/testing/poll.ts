// Polling for tests: the one loop that asks again until an answer comes or the time is up.

export interface PollOptions {
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * The first value `probe` gives (anything but undefined), asking every `intervalMs`; undefined
 * once `timeoutMs` has passed without one.
 */
export async function poll<T>(
  probe: () => Promise<T | undefined>,
  { timeoutMs = 15_000, intervalMs = 100 }: PollOptions = {},
): Promise<T | undefined> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) return undefined;
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/** As poll, but the time running out is an error naming what was awaited. */
export async function pollUntil<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options?: PollOptions,
): Promise<T> {
  const value = await poll(probe, options);
  if (value === undefined) throw new Error(`timed out waiting for ${what}`);
  return value;
}
