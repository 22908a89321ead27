import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../pipeline/common/paths.js';
import { jest } from '../../pipeline/runners/jest.js';
import { mocha } from '../../pipeline/runners/mocha.js';
import { installedVersion } from '../../pipeline/runners/run-tests.js';
import type { RunnerAdapter } from '../../pipeline/runners/types.js';
import { vitest } from '../../pipeline/runners/vitest.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES, tempDir } from '../helpers.js';

const GRADER = join(PACKAGE_ROOT, 'pipeline', 'dataset', 'formats', 'harbor-grade.mjs');

/**
 * A Harbor task's grader reads the runner's report without swesynth, in the container: it must
 * name every test as swesynth's adapter does, or a task would never (or always) be rewarded. Each
 * case runs the adapter's command on its fixture's basic test file (which holds a passing, a
 * failing, a skipped and a repeated title) as a task's test.sh runs it.
 */
describe.each([
  { adapter: jest, fixture: 'jest', file: 'test/basic.test.ts' },
  { adapter: vitest, fixture: 'vitest', file: 'test/basic.test.ts' },
  { adapter: mocha, fixture: 'mocha-10', file: 'test/basic.test.js' },
])(
  "the Harbor grader on $adapter.name's report",
  ({ adapter, fixture, file }: { adapter: RunnerAdapter; fixture: string; file: string }) => {
    const root = join(FIXTURES, fixture);
    const run = async () => {
      const sandbox = LocalSandbox.at(root);
      const reportFile = join(tempDir('report'), 'report');
      const command = adapter.command({
        testFiles: [file],
        only: [file],
        args: [],
        reportFile,
        timeoutMs: 60_000,
        tools: sandbox.tools,
        version: await installedVersion(sandbox, adapter),
      });
      await execa(command.file, command.args, {
        cwd: root,
        env: command.env,
        reject: false,
        stdout: command.stdoutFile ? { file: command.stdoutFile } : 'ignore',
      });
      const report = readFileSync(reportFile, 'utf8');
      return { reportFile, report, results: adapter.parse(report, root).results };
    };
    const grade = async (reportFile: string, tests: { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] }) => {
      const dir = tempDir('grade');
      writeFileSync(join(dir, 'tests.json'), JSON.stringify(tests));
      const graded = await execa('node', [
        GRADER,
        join(dir, 'tests.json'),
        join(dir, 'reward.txt'),
        root,
        `=${adapter.reportFormat}=${reportFile}`,
      ]);
      return { reward: readFileSync(join(dir, 'reward.txt'), 'utf8').trim(), output: graded.stdout };
    };

    it('rewards 1 when every listed test passed, by the ids swesynth gives them, repeats numbered', async () => {
      const { reportFile, results } = await run();
      const passing = results.filter((result) => result.status === 'pass').map((result) => result.id);
      expect(passing).toContain(`${file}::math > adds`);
      expect(await grade(reportFile, { FAIL_TO_PASS: passing.slice(0, 1), PASS_TO_PASS: passing.slice(1) })).toMatchObject({ reward: '1' });
    });

    it('rewards 0 when a listed test failed, was skipped or is missing, and when the report is cut short', async () => {
      const { reportFile, report, results } = await run();
      const failing = results.find((result) => result.status === 'fail')!;
      const skipped = results.find((result) => result.status === 'skip')!;
      const adds = `${file}::math > adds`;
      expect(await grade(reportFile, { FAIL_TO_PASS: [failing.id], PASS_TO_PASS: [adds] })).toMatchObject({
        reward: '0',
        output: expect.stringContaining(`not passing: ${failing.id}`),
      });
      expect((await grade(reportFile, { FAIL_TO_PASS: [skipped.id], PASS_TO_PASS: [] })).reward).toBe('0');
      expect((await grade(reportFile, { FAIL_TO_PASS: [`${file}::math > is not there`], PASS_TO_PASS: [] })).reward).toBe('0');
      writeFileSync(reportFile, report.slice(0, Math.floor(report.length / 2)));
      expect(await grade(reportFile, { FAIL_TO_PASS: [adds], PASS_TO_PASS: [] })).toMatchObject({
        reward: '0',
        output: expect.stringContaining('did not finish its report'),
      });
    });
  },
);
