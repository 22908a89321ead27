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
  ) {
    // On a terminal the bar shows from the start, so that a slow first step is not silent.
    if (enabled && total > 0 && stream.isTTY) stream.write(`\r${this.render()}\x1b[K`);
  }

  /** One step done; `outcome` counts it under that name on the bar. */
  tick(outcome?: string): void {
    this.done++;
    if (outcome !== undefined) this.counts.set(outcome, (this.counts.get(outcome) ?? 0) + 1);
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
    // Under a second the rate would read as thousands per second.
    const rate = this.done / Math.max(elapsed, 1);
    const eta = this.done > 0 ? `eta ${Math.round((this.total - this.done) / rate)}s` : 'eta ?';
    const outcomes = [...this.counts].map(([name, count]) => ` ${name} ${count}`).join(',');
    return `${this.label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${this.done}/${this.total}${outcomes} | ${Math.round(elapsed)}s, ${rate.toFixed(1)}/s, ${eta}`;
  }
}
