// Runs tasks with at most `concurrency` at a time (parallel layer transfers, as Docker's
// max-concurrent-downloads/uploads). Fails fast: the first error rejects, others still settle.
export async function mapLimit<T, R>(
  items: readonly T[],
  concurrency: number,
  task: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failed: { error: unknown } | undefined;
  async function worker(): Promise<void> {
    while (next < items.length && !failed) {
      const index = next++;
      try {
        results[index] = await task(items[index], index);
      } catch (error) {
        failed ??= { error };
      }
    }
  }
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, items.length)) }, worker));
  if (failed) throw failed.error;
  return results;
}
