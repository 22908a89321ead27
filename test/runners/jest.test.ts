import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { jest } from '../../pipeline/runners/jest.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES } from '../helpers.js';

const fixture = join(FIXTURES, 'jest');
const request = {
  testFiles: ['test/basic.test.ts'],
  args: ['--config', 'jest.config.js'],
  reportFile: '/repo/report.json',
  timeoutMs: 10_000,
  tools: LocalSandbox.at(fixture).tools,
  version: null,
};

/** A report as `jest --json` writes it, with one file of the given tests. */
function report(status: 'passed' | 'failed', assertionResults: object[]): string {
  return JSON.stringify({
    testResults: [{ name: `${fixture}/test/a.test.ts`, status, message: '', assertionResults }],
    wasInterrupted: false,
  });
}

describe('jest adapter, beyond the shared contract', () => {
  it('runs the whole suite through the repository binary, or exactly the files asked for', () => {
    const whole = jest.command(request);
    expect(whole.file).toBe('node_modules/.bin/jest');
    expect(whole.args).toEqual(
      expect.arrayContaining(['--json', '--outputFile=/repo/report.json', '--coverage=false', '--watchAll=false', '--testTimeout=8000']),
    );
    expect(whole.args.slice(-2)).toEqual(['--config', 'jest.config.js']);
    expect(jest.command({ ...request, only: ['test/a.test.ts'] }).args.slice(-4)).toEqual([
      '--config',
      'jest.config.js',
      '--runTestsByPath',
      'test/a.test.ts',
    ]);
  });

  it('tells a report cut short from a complete one', () => {
    const complete = report('passed', [{ ancestorTitles: ['a'], title: 'b', status: 'passed', duration: 1, failureMessages: [] }]);
    expect(jest.parse(complete, fixture)).toMatchObject({ complete: true, results: [{ id: 'test/a.test.ts::a > b', status: 'pass' }] });
    expect(jest.parse(complete.slice(0, -20), fixture).complete).toBe(false);
    expect(jest.parse('', fixture).complete).toBe(false);
    expect(jest.parse(JSON.stringify({ testResults: [], wasInterrupted: true }), fixture).complete).toBe(false);
  });

  it('reports a test or hook that ran into jest’s timeout as timed out', () => {
    const timedOut = (kind: string) => ({
      ancestorTitles: [],
      title: kind,
      status: 'failed',
      duration: 5000,
      failureMessages: [
        `Error: thrown: "Exceeded timeout of 5000 ms for a ${kind}.\nAdd a timeout value to this test to increase the timeout."\n    at ${fixture}/test/a.test.ts:5:3`,
      ],
      failureDetails: [{}],
    });
    const { results } = jest.parse(report('failed', [timedOut('test'), timedOut('hook')]), fixture);
    expect(results.map((result) => result.status)).toEqual(['timeout', 'timeout']);
    expect(results[0]?.failure?.location).toEqual({ file: 'test/a.test.ts', line: 5, column: 3 });
  });

  it('formats the values of a node:assert error as well as those of a matcher', () => {
    const failed = {
      ancestorTitles: [],
      title: 'a',
      status: 'failed',
      failureMessages: ['AssertionError [ERR_ASSERTION]: Expected values to be strictly equal'],
    };
    const { results } = jest.parse(
      report('failed', [{ ...failed, failureDetails: [{ actual: 'ab', expected: 'ac', operator: 'strictEqual' }] }]),
      fixture,
    );
    expect(results[0]?.failure).toMatchObject({
      name: 'AssertionError',
      message: 'Expected values to be strictly equal',
      expected: "'ac'",
      actual: "'ab'",
      operator: 'strictEqual',
    });
  });

  it('reads the tests of a report whose titles are numbers, as jest 22 writes them', async () => {
    const run = await runTests(LocalSandbox.at(join(FIXTURES, 'jest-22')), jest, {
      testFiles: ['test/numbered.test.js'],
      only: ['test/numbered.test.js'],
      args: [],
      timeoutMs: 30_000,
    });
    expect(run.kind === 'results' && run.results).toMatchObject([{ id: 'test/numbered.test.js::404 > 7', status: 'pass' }]);
  });

  it('passes only the flags its jest takes to a repository that depends on jest-cli alone', async () => {
    const run = await runTests(LocalSandbox.at(join(FIXTURES, 'jest-cli-22')), jest, {
      testFiles: ['test/basic.test.js'],
      args: [],
      timeoutMs: 30_000,
    });
    expect(run.kind === 'results' && run.results.find((result) => result.id === 'test/basic.test.js::math > adds')).toMatchObject({
      status: 'pass',
    });
  });

  it('gives the crash error of a file that fails to load, where it was thrown', async () => {
    const run = await runTests(LocalSandbox.at(fixture), jest, {
      testFiles: ['test/crash.test.ts'],
      only: ['test/crash.test.ts'],
      args: [],
      timeoutMs: 30_000,
    });
    expect(run.kind === 'results' && run.results).toMatchObject([
      {
        id: 'test/crash.test.ts::(file)',
        status: 'error',
        failure: { message: 'Error: this file crashes while loading', name: 'Error', location: { file: 'test/crash.test.ts', line: 3 } },
      },
    ]);
  });
});
