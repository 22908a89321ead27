import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { reporterPath } from '../../pipeline/common/paths.js';
import { runTests } from '../../pipeline/runners/run-tests.js';
import { vitest } from '../../pipeline/runners/vitest.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES } from '../helpers.js';

const fixture = join(FIXTURES, 'vitest');
const sandbox = LocalSandbox.at(fixture);
const request = {
  testFiles: ['test/basic.test.ts'],
  args: ['--project', 'unit'],
  reportFile: '/repo/report.json',
  timeoutMs: 10_000,
  tools: sandbox.tools,
  version: null,
};

describe('vitest adapter, beyond the shared contract', () => {
  it('runs the whole suite through the repository binary, or only the files asked for', () => {
    const whole = vitest.command(request);
    expect(whole.file).toBe('node_modules/.bin/vitest');
    expect(whole.args[0]).toBe('run');
    expect(whole.args).toEqual(
      expect.arrayContaining([
        `--reporter=${reporterPath('vitest-reporter.mjs')}`,
        '--outputFile=/repo/report.json',
        '--coverage.enabled=false',
        '--testTimeout=8000',
        '--hookTimeout=8000',
      ]),
    );
    expect(whole.args.slice(-2)).toEqual(['--project', 'unit']);
    expect(vitest.command({ ...request, only: ['test/a.test.ts'] }).args.slice(-3)).toEqual(['--project', 'unit', 'test/a.test.ts']);
  });

  it('reports a test or hook that ran into vitest’s timeout as timed out', () => {
    const timedOut = (title: string, status: string, text: string) => ({
      ancestorTitles: [],
      title,
      status,
      failureMessages: [`Error: ${text}\n    at ${fixture}/test/a.test.ts:5:1`],
      failureDetails: [{}],
    });
    const report = JSON.stringify({
      wasInterrupted: false,
      testResults: [
        {
          name: `${fixture}/test/a.test.ts`,
          status: 'failed',
          assertionResults: [
            timedOut('a', 'failed', 'Test timed out in 3200ms.'),
            timedOut('(suite)', 'error', 'Hook timed out in 3200ms.'),
          ],
        },
      ],
    });
    expect(vitest.parse(report, fixture).results.map((result) => result.status)).toEqual(['timeout', 'timeout']);
  });

  it('gives the crash error of a file that fails to load, where it was thrown', async () => {
    const run = await runTests(sandbox, vitest, {
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

  it('reports a suite whose hook failed as an error of that suite', async () => {
    const run = await runTests(sandbox, vitest, {
      testFiles: ['hooks/broken-setup.test.ts'],
      only: ['hooks/broken-setup.test.ts'],
      args: [],
      timeoutMs: 30_000,
    });
    expect(run.kind === 'results' && run.results.map((result) => [result.id, result.status, result.failure?.message])).toEqual([
      ['hooks/broken-setup.test.ts::setup > (suite)', 'error', 'the setup hook fails'],
      ['hooks/broken-setup.test.ts::setup > never runs', 'skip', undefined],
      ['hooks/broken-setup.test.ts::runs beside it', 'pass', undefined],
    ]);
  });
});
