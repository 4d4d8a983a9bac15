// A token bucket per client address: requests beyond the rate get 429 TOOMANYREQUESTS.

export class RateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly perSecond: number,
    private readonly burst: number,
  ) {}

  /** True when the request may proceed; otherwise the seconds to wait. */
  take(client: string, now = Date.now()): true | number {
    const bucket = this.buckets.get(client) ?? { tokens: this.burst, at: now };
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) / 1000) * this.perSecond);
    bucket.at = now;
    this.buckets.set(client, bucket);
    if (this.buckets.size > 10000) this.buckets.clear();
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return true;
    }
    return Math.ceil((1 - bucket.tokens) / this.perSecond);
  }
}
