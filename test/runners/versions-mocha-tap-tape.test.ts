import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mocha } from '../../pipeline/runners/mocha.js';
import { runTests, type TestRun } from '../../pipeline/runners/run-tests.js';
import { tap } from '../../pipeline/runners/tap.js';
import { tape } from '../../pipeline/runners/tape.js';
import type { RunnerAdapter, TestResult } from '../../pipeline/runners/types.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES } from '../helpers.js';

/**
 * The runner majors that the full contract (contract.test.ts, on the newest major) does not run:
 * what users rely on, per major, on a fixture with that major installed (test/fixtures/<runner>-<major>).
 * Each fixture has test/basic.test.js (suite "math": "adds" passes, "fails on purpose" expects 3
 * and gets 2, "is skipped"), test/crash.test.js, which throws while loading, and test/hang.test.js,
 * whose "never settles" never finishes.
 */
interface VersionCase {
  adapter: RunnerAdapter;
  fixture: string;
  args?: string[];
}

const CASES: VersionCase[] = [
  ...['mocha-3', 'mocha-5', 'mocha-6', 'mocha-7', 'mocha-8', 'mocha-9', 'mocha-10'].map((fixture) => ({ adapter: mocha, fixture })),
  // ES module syntax through the esm loader, as repositories on mocha 8 and older write it.
  { adapter: mocha, fixture: 'mocha-8-esm', args: ['--require', 'esm'] },
  // tap 14 reports each file as a buffered subtest (`ok 1 - test/x.js {` … `}`).
  ...['tap-2', 'tap-7', 'tap-14', 'tap-18', 'tap-19', 'tap-20'].map((fixture) => ({ adapter: tap, fixture })),
  // tape 2 has no `timeoutAfter` of its own.
  { adapter: tape, fixture: 'tape-2' },
  { adapter: tape, fixture: 'tape-3' },
  { adapter: tape, fixture: 'tape-4' },
];

const BASIC = 'test/basic.test.js';
const CRASH = 'test/crash.test.js';
const HANG = 'test/hang.test.js';

describe.each(CASES)('the $adapter.name adapter on $fixture', ({ adapter, fixture, args = [] }) => {
  const sandbox = LocalSandbox.at(join(FIXTURES, fixture));
  const run = (files: string[], timeoutMs = 30_000): Promise<TestRun> =>
    runTests(sandbox, adapter, { testFiles: [BASIC, CRASH, HANG], only: files, args, timeoutMs });
  const results = async (files: string[]): Promise<TestResult[]> => {
    const outcome = await run(files);
    if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
    return outcome.results;
  };
  const statusOf = (found: TestResult[], id: string) => found.find((result) => result.id === id)?.status;

  it('reports pass, fail and skip with stable ids, and the values of a failed assertion, for the given file only', async () => {
    const found = await results([BASIC]);
    expect(statusOf(found, `${BASIC}::math > adds`)).toBe('pass');
    expect(statusOf(found, `${BASIC}::math > is skipped`)).toBe('skip');
    const failing = found.find((result) => result.id === `${BASIC}::math > fails on purpose`);
    expect(failing).toMatchObject({ status: 'fail', failure: { expected: '3', actual: '2' } });
    expect(failing?.failure?.message).toBeTruthy();
    expect(new Set(found.map((result) => result.file))).toEqual(new Set([BASIC]));
  });

  it('reports a file that throws while loading as failed, and loses no other file', async () => {
    const found = await results([CRASH, BASIC]);
    const crashed = found.filter((result) => result.file === CRASH);
    expect(crashed.length).toBeGreaterThan(0);
    expect(crashed.every((result) => result.status === 'error' || result.status === 'fail')).toBe(true);
    expect(statusOf(found, `${BASIC}::math > adds`)).toBe('pass');
    expect(statusOf(found, `${BASIC}::math > fails on purpose`)).toBe('fail');
  });

  it('ends a test that never finishes within the timeout', async () => {
    const outcome = await run([HANG], 4_000);
    const timedOut =
      outcome.kind === 'timeout' || (outcome.kind === 'results' && outcome.results.some((result) => result.status === 'timeout'));
    expect(timedOut).toBe(true);
  });
});
