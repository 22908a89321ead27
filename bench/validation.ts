/**
 * Validation benchmark: one fixed candidate set per repository, validated three ways on the same
 * machine in the same run, (a) the whole suite per candidate in a fresh runner process, (b)
 * swesynth's default (only the test files that execute the candidate's code), and (c) the kill
 * screen of `--kill-only` (those files, most likely first, stopping at the first failure). Prints
 * candidates and tasks per minute, the ratios, the share of time outside the tests, whether (a)
 * and (b) kept the same tasks with the same FAIL_TO_PASS and PASS_TO_PASS lists, and whether (c)
 * found the candidates (b) found killed, survived and timed out.
 *
 * Minutes are the span of each way's validation, from the start of its first candidate to its last
 * verdict, read from the verdicts' times; `--report` reads them again from the work folder
 * without validating anything.
 *
 *   npm run build && node dist/bench/validation.js <profile.json>... [--candidates 30] [--work <dir>] [--json] [--report]
 */
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { execa } from 'execa';
import { PACKAGE_ROOT } from '../pipeline/paths.js';
import type { Verdict } from '../pipeline/records.js';
import { RunStore } from '../pipeline/store.js';

const { values, positionals: profiles } = parseArgs({
  allowPositionals: true,
  options: {
    candidates: { type: 'string', default: '30' },
    work: { type: 'string', default: '.swesynth/bench' },
    seed: { type: 'string', default: '1' },
    json: { type: 'boolean', default: false },
    report: { type: 'boolean', default: false },
  },
});
if (profiles.length === 0) {
  process.stderr.write('usage: node dist/bench/validation.js <profile.json>... [--candidates 30] [--work <dir>] [--json]\n');
  process.exit(2);
}

async function swesynth(args: string[]): Promise<void> {
  const result = await execa(process.execPath, [join(PACKAGE_ROOT, 'dist', 'pipeline', 'cli.js'), ...args, '--no-progress'], { reject: false, stderr: 'inherit' });
  if (result.exitCode !== 0) throw new Error(`swesynth ${args.join(' ')} failed with exit code ${result.exitCode}`);
}

interface Way {
  minutes: number;
  candidatesPerMinute: number;
  tasksPerMinute: number;
  kept: number;
  /** Share of the candidates' validation time spent outside the tests (process start, copies, builds). */
  overheadShare: number;
  testRunsSkipped: number;
}

function wayOf(runDir: string): { way: Way; verdicts: Verdict[] } {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    const verdicts = store.verdicts();
    const started = Math.min(...verdicts.map((verdict) => Date.parse(verdict.validatedAt) - verdict.durationMs));
    const wallMs = Math.max(...verdicts.map((verdict) => Date.parse(verdict.validatedAt))) - started;
    const kept = verdicts.filter((verdict) => verdict.status === 'kept').length;
    const total = verdicts.reduce((sum, verdict) => sum + verdict.durationMs, 0);
    const tests = verdicts.reduce((sum, verdict) => sum + (verdict.testsMs ?? 0), 0);
    const minutes = wallMs / 60_000;
    return {
      verdicts,
      way: {
        minutes: round(minutes, 2),
        candidatesPerMinute: round(verdicts.length / minutes, 1),
        tasksPerMinute: round(kept / minutes, 1),
        kept,
        overheadShare: round(total === 0 ? 0 : 1 - tests / total, 3),
        testRunsSkipped: verdicts.filter((verdict) => verdict.detail === 'no test executes the changed code').length,
      },
    };
  } finally {
    store.close();
  }
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** What a complete verdict answers to "killed?": the kill screen's status for it. */
const screened = (status: Verdict['status']) => (['kept', 'no-pass', 'fix-failed'].includes(status) ? 'killed' : status);

/** Candidates whose kill screen verdict is not what their complete verdict says. */
function screenDifferences(complete: Verdict[], screen: Verdict[]): string[] {
  const other = new Map(screen.map((verdict) => [verdict.candidateId, verdict.status]));
  return complete.filter((verdict) => screened(verdict.status) !== other.get(verdict.candidateId)).map((verdict) => `${verdict.candidateId}: ${verdict.status} / ${other.get(verdict.candidateId) ?? 'missing'}`);
}

/** Differences between the two ways' verdicts: status, FAIL_TO_PASS or PASS_TO_PASS of any candidate. */
function differences(a: Verdict[], b: Verdict[]): string[] {
  const other = new Map(b.map((verdict) => [verdict.candidateId, verdict]));
  const key = (verdict: Verdict | undefined) =>
    verdict && JSON.stringify([verdict.status === 'kept', verdict.status === 'kept' ? [...verdict.failToPass].sort() : [], verdict.status === 'kept' ? [...verdict.passToPass].sort() : []]);
  return a.filter((verdict) => key(verdict) !== key(other.get(verdict.candidateId))).map((verdict) => `${verdict.candidateId}: ${verdict.status} / ${other.get(verdict.candidateId)?.status ?? 'missing'}`);
}

const rows = [];
for (const profile of profiles) {
  const name = profile.split('/').pop()!.replace(/\.json$/, '');
  const base = resolve(values.work, name);
  const prepared = join(base, 'prepared');
  if (!values.report) {
    process.stderr.write(`bench: ${name}: setup and mutate (${values.candidates} candidates)\n`);
    await swesynth(['setup', profile, '--run-dir', prepared]);
    await swesynth(['mutate', profile, '--run-dir', prepared, '--max-candidates', values.candidates, '--seed', values.seed]);
  }
  const ways: Record<string, { way: Way; verdicts: Verdict[] }> = {};
  for (const [way, flags] of [['wholeSuite', ['--whole-suite']], ['default', []], ['screen', ['--kill-only']]] as const) {
    const runDir = join(base, way);
    if (!values.report) {
      rmSync(runDir, { recursive: true, force: true });
      mkdirSync(runDir, { recursive: true });
      // The same store (the same candidates and the same workspace), validated afresh.
      copyFileSync(join(prepared, 'run.db'), join(runDir, 'run.db'));
      process.stderr.write(`bench: ${name}: validating, ${way}\n`);
      await swesynth(['validate', profile, '--run-dir', runDir, ...flags]);
    }
    ways[way] = wayOf(runDir);
  }
  const diffs = differences(ways.wholeSuite!.verdicts, ways.default!.verdicts);
  const screenDiffs = screenDifferences(ways.default!.verdicts, ways.screen!.verdicts);
  rows.push({
    repository: name,
    candidates: ways.default!.verdicts.length,
    wholeSuite: ways.wholeSuite!.way,
    default: ways.default!.way,
    speedup: round(ways.wholeSuite!.way.minutes / ways.default!.way.minutes, 1),
    identicalTasks: diffs.length === 0,
    differences: diffs,
    screen: ways.screen!.way,
    screenSpeedup: round(ways.default!.way.minutes / ways.screen!.way.minutes, 1),
    sameKills: screenDiffs.length === 0,
    screenDifferences: screenDiffs,
  });
}

if (values.json) {
  process.stdout.write(`${JSON.stringify(rows, null, 2)}\n`);
} else {
  const lines = [
    '| repository | candidates | (a) whole suite: cand/min | tasks/min | overhead | (b) default: cand/min | tasks/min | overhead | uncovered, no run | (b)/(a) | same tasks | (c) kill screen: cand/min | (c)/(b) | same kills |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|---|',
    ...rows.map((row) =>
      `| ${row.repository} | ${row.candidates} | ${row.wholeSuite.candidatesPerMinute} | ${row.wholeSuite.tasksPerMinute} | ${pct(row.wholeSuite.overheadShare)} | ${row.default.candidatesPerMinute} | ${row.default.tasksPerMinute} | ${pct(row.default.overheadShare)} | ${row.default.testRunsSkipped} | ${row.speedup}× | ${row.identicalTasks ? 'yes' : `no: ${row.differences.join('; ')}`} | ${row.screen.candidatesPerMinute} | ${row.screenSpeedup}× | ${row.sameKills ? 'yes' : `no: ${row.screenDifferences.join('; ')}`} |`),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

function pct(share: number): string {
  return `${(share * 100).toFixed(0)}%`;
}
