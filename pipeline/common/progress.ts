/** A one-line progress bar on stderr when it is a terminal; otherwise a line every 10%. */
export class Progress {
  private done = 0;
  private readonly counts = new Map<string, number>();
  private readonly started = performance.now();
  private lastDecile = 0;

  constructor(
    private readonly label: string,
    private readonly total: number,
    private readonly enabled: boolean,
    private readonly stream: NodeJS.WriteStream = process.stderr,
  ) {}

  tick(outcome: string): void {
    this.done++;
    this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
    if (!this.enabled || this.total === 0) return;
    const line = this.render();
    if (this.stream.isTTY) {
      this.stream.write(`\r${line}\x1b[K`);
      if (this.done === this.total) this.stream.write('\n');
    } else {
      const decile = Math.floor((this.done / this.total) * 10);
      if (decile > this.lastDecile || this.done === this.total) {
        this.lastDecile = decile;
        this.stream.write(`${line}\n`);
      }
    }
  }

  private render(): string {
    const width = 24;
    const filled = Math.round((this.done / this.total) * width);
    const elapsed = (performance.now() - this.started) / 1000;
    const rate = this.done / Math.max(elapsed, 0.001);
    const eta = rate > 0 ? Math.round((this.total - this.done) / rate) : 0;
    const outcomes = [...this.counts].map(([name, count]) => `${name} ${count}`).join(', ');
    return `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${this.total} ${outcomes} | ${rate.toFixed(1)}/s, eta ${eta}s`;
  }
}
