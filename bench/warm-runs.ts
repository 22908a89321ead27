/**
 * One test run, cold and warm: the same request (test files, runner arguments) run in a fresh
 * runner process and through the runner's warm server, in an installed repository, alternately,
 * `--runs` times each after one of each to start. Prints each way's median and range, their
 * ratio, and whether every run gave every test the same status.
 *
 *   npm run build && node dist/bench/warm-runs.js <installed repository> --runner mocha --files test/a.js[,test/b.js] [--args="--require x"] [--runs 10]
 */
import { parseArgs } from 'node:util';
import { runnerNamed } from '../pipeline/runners/index.js';
import { runTests, type TestRun } from '../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../pipeline/sandbox/local.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    runner: { type: 'string' },
    files: { type: 'string' },
    args: { type: 'string', default: '' },
    runs: { type: 'string', default: '10' },
  },
});
if (positionals.length !== 1 || !values.runner || !values.files) {
  process.stderr.write(
    'usage: node dist/bench/warm-runs.js <installed repository> --runner <name> --files <a,b> [--args="..."] [--runs 10]\n',
  );
  process.exit(2);
}

const adapter = runnerNamed(values.runner);
const files = values.files.split(',');
const request = { testFiles: files, only: files, args: values.args.split(' ').filter(Boolean), timeoutMs: 120_000 };
const sandbox = LocalSandbox.at(positionals[0]!);
const statuses = (run: TestRun) =>
  run.kind === 'results' ? JSON.stringify(run.results.map((result) => [result.id, result.status]).sort()) : run.kind;

async function timed(warm: boolean): Promise<{ ms: number; statuses: string }> {
  const started = performance.now();
  const run = await runTests(sandbox, adapter, { ...request, warm });
  return { ms: performance.now() - started, statuses: statuses(run) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const seconds = (ms: number) => (ms / 1000).toFixed(3);
try {
  // The first of each way starts what it keeps (the warm server, on trial beside a cold run; the file cache).
  const first = [await timed(false), await timed(true)];
  const cold: number[] = [];
  const warm: number[] = [];
  const seen = new Set(first.map((run) => run.statuses));
  for (let run = 0; run < Number(values.runs); run++) {
    for (const [way, times] of [
      [false, cold],
      [true, warm],
    ] as const) {
      const { ms, statuses: found } = await timed(way);
      times.push(ms);
      seen.add(found);
    }
  }
  const range = (times: number[]) => `${seconds(median(times))} s (${seconds(Math.min(...times))}–${seconds(Math.max(...times))})`;
  process.stdout.write(
    [
      `first runs: cold ${seconds(first[0]!.ms)} s, warm ${seconds(first[1]!.ms)} s (on trial: a cold run follows it)`,
      `cold: ${range(cold)}`,
      `warm: ${range(warm)}`,
      `warm / cold: ${(median(warm) / median(cold)).toFixed(3)}`,
      `every run the same statuses: ${seen.size === 1 ? 'yes' : `no (${seen.size} different)`}`,
    ].join('\n') + '\n',
  );
} finally {
  await sandbox.dispose();
}
