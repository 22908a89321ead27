/**
 * Validation benchmark: one fixed candidate set per repository, validated three ways on the same
 * machine in the same run, (a) the whole suite per candidate in a fresh runner process, (b)
 * swesynth's default (only the test files that execute the candidate's code), (c) the kill
 * screen of `--kill-only` (those files, most likely first, stopping at the first failure), and
 * (d) the kill screen followed by the complete run of the killed candidates, for their lists
 * (validating (c)'s store again without `--kill-only`). Prints candidates and tasks per minute,
 * the ratios, the share of time outside the tests, whether (a), (b) and (d) kept the same tasks
 * with the same FAIL_TO_PASS and PASS_TO_PASS lists, and whether (c) found the candidates (b)
 * found killed, survived and timed out.
 *
 * Minutes are the span of each way's validation, from the start of its first candidate to its last
 * verdict, read from the verdicts' times ((d): (c)'s span plus that of its second validation).
 * `--ways` names the ways to validate (default all); the others, and all of them with `--report`,
 * are read again from the work folder, and left out where they never ran (a and b are needed).
 *
 *   npm run build && node dist/bench/validation.js <profile.json>... [--candidates 30] [--work <dir>] [--ways a,b,c,d] [--json] [--report]
 */
import { copyFileSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { PACKAGE_ROOT } from '../pipeline/common/paths.js';
import type { Verdict } from '../pipeline/store/records.js';
import { KILLED } from '../pipeline/dataset/stats.js';
import { RunStore } from '../pipeline/store/run-store.js';

const { values, positionals: profiles } = parseArgs({
  allowPositionals: true,
  options: {
    candidates: { type: 'string', default: '30' },
    work: { type: 'string', default: '.swesynth/bench' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    report: { type: 'boolean', default: false },
    ways: { type: 'string', default: 'a,b,c,d' },
  },
});
const validated = new Set(values.report ? [] : values.ways.split(','));
if (profiles.length === 0) {
  process.stderr.write(
    'usage: node dist/bench/validation.js <profile.json>... [--candidates 30] [--work <dir>] [--ways a,b,c,d] [--json] [--report]\n',
  );
  process.exit(2);
}

async function swesynth(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [join(PACKAGE_ROOT, 'dist', 'pipeline', 'cli', 'main.js'), ...args, '--no-progress'], {
    reject: false,
    stderr: 'inherit',
  });
  if (result.exitCode !== 0) throw new Error(`swesynth ${args.join(' ')} failed with exit code ${result.exitCode}`);
}

interface Way {
  minutes: number;
  candidatesPerMinute: number;
  tasksPerMinute: number;
  kept: number;
  /** Share of the candidates' validation time spent outside the tests (process start, copies, builds). */
  overheadShare: number;
  /** The median of the tests' own time (as their runner reports it) in a candidate's runs, over the candidates that ran tests. */
  coveringTestsMs: number;
  testRunsSkipped: number;
}

/** From the start of the first of these verdicts' candidates to the last verdict. */
function spanMs(verdicts: Verdict[]): number {
  if (verdicts.length === 0) return 0;
  const started = Math.min(...verdicts.map((verdict) => Date.parse(verdict.validatedAt) - verdict.durationMs));
  return Math.max(...verdicts.map((verdict) => Date.parse(verdict.validatedAt))) - started;
}

/** A way's figures; `after` is the way whose store it validated again, and whose time it adds. */
function wayOf(runDir: string, after?: { way: Way; verdicts: Verdict[] }): { way: Way; verdicts: Verdict[] } {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    const verdicts = store.verdicts();
    const before = after ? Math.max(...after.verdicts.map((verdict) => Date.parse(verdict.validatedAt))) : -Infinity;
    const own = verdicts.filter((verdict) => Date.parse(verdict.validatedAt) > before);
    const kept = verdicts.filter((verdict) => verdict.status === 'kept').length;
    const total = own.reduce((sum, verdict) => sum + verdict.durationMs, 0);
    const tests = own.reduce((sum, verdict) => sum + (verdict.testsMs ?? 0), 0);
    const minutes = spanMs(own) / 60_000 + (after?.way.minutes ?? 0);
    return {
      verdicts,
      way: {
        minutes: round(minutes, 2),
        candidatesPerMinute: round(verdicts.length / minutes, 1),
        tasksPerMinute: round(kept / minutes, 1),
        kept,
        overheadShare: round(total === 0 ? 0 : 1 - tests / total, 3),
        coveringTestsMs: median(own.filter((verdict) => verdict.detail !== NO_RUN).map((verdict) => verdict.testsMs ?? 0)),
        testRunsSkipped: verdicts.filter((verdict) => verdict.detail === NO_RUN).length,
      },
    };
  } finally {
    store.close();
  }
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** What a candidate whose functions no test executes says: it ran no test. */
const NO_RUN = 'no test executes the changed code';

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  if (sorted.length === 0) return 0;
  return round(sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2, 0);
}

/** What a complete verdict answers to "killed?": the kill screen's status for it. */
const screened = (status: Verdict['status']) => (KILLED.has(status) ? 'killed' : status);

/** Candidates whose kill screen verdict is not what their complete verdict says. */
function screenDifferences(complete: Verdict[], screen: Verdict[]): string[] {
  const other = new Map(screen.map((verdict) => [verdict.candidateId, verdict.status]));
  return complete
    .filter((verdict) => screened(verdict.status) !== other.get(verdict.candidateId))
    .map((verdict) => `${verdict.candidateId}: ${verdict.status} / ${other.get(verdict.candidateId) ?? 'missing'}`);
}

/** A way against its reference: its figures, how many times faster it was, and where the two disagree. */
interface Compared {
  way: Way;
  speedup: number;
  differences: string[];
}

function compared(
  reference: { way: Way; verdicts: Verdict[] },
  other: { way: Way; verdicts: Verdict[] },
  disagreements: (reference: Verdict[], other: Verdict[]) => string[],
  digits: number,
): Compared {
  return {
    way: other.way,
    speedup: round(reference.way.minutes / other.way.minutes, digits),
    differences: disagreements(reference.verdicts, other.verdicts),
  };
}

/** Differences between the two ways' verdicts: status, FAIL_TO_PASS or PASS_TO_PASS of any candidate. */
function differences(a: Verdict[], b: Verdict[]): string[] {
  const other = new Map(b.map((verdict) => [verdict.candidateId, verdict]));
  const key = (verdict: Verdict | undefined) =>
    verdict &&
    JSON.stringify([
      verdict.status === 'kept',
      verdict.status === 'kept' ? [...verdict.failToPass].sort() : [],
      verdict.status === 'kept' ? [...verdict.passToPass].sort() : [],
    ]);
  return a
    .filter((verdict) => key(verdict) !== key(other.get(verdict.candidateId)))
    .map((verdict) => `${verdict.candidateId}: ${verdict.status} / ${other.get(verdict.candidateId)?.status ?? 'missing'}`);
}

const rows = [];
for (const profile of profiles) {
  const name = profile
    .split('/')
    .pop()!
    .replace(/\.json$/, '');
  const base = resolve(values.work, name);
  const prepared = join(base, 'prepared');
  if (validated.size > 0) {
    process.stderr.write(`bench: ${name}: setup and mutate (${values.candidates} candidates)\n`);
    await swesynth(['setup', profile, '--run-dir', prepared]);
    await swesynth(['mutate', profile, '--run-dir', prepared, '--max-candidates', values.candidates, '--seed', values.seed]);
  }
  const ways: Record<string, { way: Way; verdicts: Verdict[] }> = {};
  const plan = [
    { key: 'a', way: 'wholeSuite', flags: ['--whole-suite'] },
    { key: 'b', way: 'default', flags: [] },
    { key: 'c', way: 'screen', flags: ['--kill-only'] },
    { key: 'd', way: 'screenThenComplete', flags: [], from: 'screen' },
  ];
  for (const { key, way, flags, from } of plan) {
    const runDir = join(base, way);
    if (validated.has(key)) {
      rmSync(runDir, { recursive: true, force: true });
      mkdirSync(runDir, { recursive: true });
      // The same store (the same candidates and the same workspace), validated afresh; (d) goes on from (c)'s.
      copyFileSync(join(from ? join(base, from) : prepared, 'run.db'), join(runDir, 'run.db'));
      process.stderr.write(`bench: ${name}: validating, ${way}\n`);
      await swesynth(['validate', profile, '--run-dir', runDir, ...flags]);
    }
    // A way neither validated now nor before is left out of the report ((d) needs (c)).
    if (!existsSync(join(runDir, 'run.db')) || (from && !ways[from])) continue;
    ways[way] = wayOf(runDir, from ? ways[from] : undefined);
  }
  const { wholeSuite, default: byDefault, screen, screenThenComplete } = ways;
  if (!wholeSuite || !byDefault) throw new Error(`${name}: ways a and b are needed; validate them with --ways a,b`);
  rows.push({
    repository: name,
    candidates: byDefault.verdicts.length,
    wholeSuite: wholeSuite.way,
    default: compared(wholeSuite, byDefault, differences, 1),
    screen: screen && compared(byDefault, screen, screenDifferences, 1),
    screenThenComplete: screenThenComplete && compared(byDefault, screenThenComplete, differences, 2),
  });
}

if (values.json) {
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
} else {
  /** A compared way's columns: its figure, how many times faster than its reference, whether they agree. */
  const columns = (way: Compared | undefined, figure: (way: Way) => string) =>
    way
      ? `${figure(way.way)} | ${way.speedup}× | ${way.differences.length === 0 ? 'yes' : `no: ${way.differences.join('; ')}`}`
      : '— | — | —';
  const lines = [
    '| repository | candidates | (a) whole suite: cand/min | tasks/min | overhead | (b) default: cand/min | tasks/min | overhead | covering tests, median | uncovered, no run | (b)/(a) | same tasks | (c) kill screen: cand/min | (c)/(b) | same kills | (d) screen, then complete: tasks/min | (d)/(b) | same tasks |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map(
      (row) =>
        `| ${row.repository} | ${row.candidates} | ${row.wholeSuite.candidatesPerMinute} | ${row.wholeSuite.tasksPerMinute} | ${pct(row.wholeSuite.overheadShare)} | ${columns(
          row.default,
          (way) =>
            `${way.candidatesPerMinute} | ${way.tasksPerMinute} | ${pct(way.overheadShare)} | ${way.coveringTestsMs} ms | ${way.testRunsSkipped}`,
        )} | ${columns(row.screen, (way) => `${way.candidatesPerMinute}`)} | ${columns(row.screenThenComplete, (way) => `${way.tasksPerMinute}`)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}
