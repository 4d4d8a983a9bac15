// A bounded set of equal-sized buffers, reused. Reading into fresh buffers costs a page fault per
// 4 KiB and leaves the allocator holding freed memory; a pool does neither, and its cap bounds
// the memory every transfer together can hold. Takers beyond the cap wait their turn, in order.

export class BufferPool {
  private readonly idle: Buffer[] = [];
  private readonly waiting: ((buffer: Buffer) => void)[] = [];
  private made = 0;

  /**
   * @param size bytes per buffer
   * @param cap buffers in existence at most
   * @param keep buffers kept when nobody waits; the rest are dropped for the collector
   */
  constructor(
    readonly size: number,
    private readonly cap: number,
    private readonly keep: number,
  ) {}

  take(): Promise<Buffer> {
    const buffer = this.idle.pop();
    if (buffer) return Promise.resolve(buffer);
    if (this.made < this.cap) {
      this.made++;
      return Promise.resolve(Buffer.allocUnsafeSlow(this.size));
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give(buffer: Buffer): void {
    const next = this.waiting.shift();
    if (next) next(buffer);
    else if (this.idle.length < this.keep) this.idle.push(buffer);
    else this.made--;
  }
}
