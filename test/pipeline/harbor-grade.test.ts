import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { beforeAll, describe, expect, it } from 'vitest';
import { graderFiles, reportForm, runLine } from '../../pipeline/dataset/formats/harbor.js';
import { jest } from '../../pipeline/runners/jest.js';
import { mocha } from '../../pipeline/runners/mocha.js';
import { nodeTest } from '../../pipeline/runners/node-test.js';
import { installedVersion, runTests } from '../../pipeline/runners/run-tests.js';
import type { RunnerAdapter, TestResult } from '../../pipeline/runners/types.js';
import { vitest } from '../../pipeline/runners/vitest.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { FIXTURES, tempDir } from '../helpers.js';
import { contractCase as ava } from '../runners/contract-cases/ava.js';
import { contractCase as tap } from '../runners/contract-cases/tap.js';
import { contractCase as tape } from '../runners/contract-cases/tape.js';

/**
 * A Harbor task's grader reads the runner's report without swesynth, in the container: it must
 * name every test as swesynth's adapter does, or a task would never (or always) be rewarded. Each
 * case runs the adapter's command on its fixture's basic test file (which holds a passing, a
 * failing and a skipped test) with the line a task's test.sh runs it with, and grades it with the files a task's
 * tests/ folder holds: the grader and, for runners whose report only the adapter can read, its
 * compiled reading.
 */
describe.each([
  { adapter: jest, fixture: 'jest', args: [], basic: 'test/basic.test.ts' },
  { adapter: vitest, fixture: 'vitest', args: [], basic: 'test/basic.test.ts' },
  { adapter: mocha, fixture: 'mocha-10', args: [], basic: 'test/basic.test.js' },
  tap,
  tape,
  ava,
])(
  "the Harbor grader on $adapter.name's report",
  ({ adapter, fixture, args, basic: file }: { adapter: RunnerAdapter; fixture: string; args: string[]; basic: string }) => {
    const root = join(FIXTURES, fixture);
    const grader = tempDir('grader');
    for (const [name, text] of Object.entries(graderFiles([adapter]))) {
      mkdirSync(dirname(join(grader, name)), { recursive: true });
      writeFileSync(join(grader, name), text);
    }
    let ran: { reportFile: string; report: string; results: TestResult[] };
    beforeAll(async () => {
      const sandbox = LocalSandbox.at(root);
      const reportFile = join(tempDir('report'), 'report');
      const command = adapter.command({
        testFiles: [file],
        only: [file],
        args,
        reportFile,
        timeoutMs: 60_000,
        tools: sandbox.tools,
        version: await installedVersion(sandbox, adapter),
      });
      // The line a task's test.sh runs, with this machine's Node.js and reporters.
      await execa('bash', ['-c', runLine(command, root, 60)], { reject: false });
      const report = readFileSync(reportFile, 'utf8');
      ran = { reportFile, report, results: adapter.parse(report, root).results };
    }, 120_000);
    const grade = async (reportFile: string, tests: { FAIL_TO_PASS: string[]; PASS_TO_PASS: string[] }) => {
      const dir = tempDir('grade');
      writeFileSync(join(dir, 'tests.json'), JSON.stringify(tests));
      const graded = await execa('node', [
        join(grader, 'grade.mjs'),
        join(dir, 'tests.json'),
        join(dir, 'reward.txt'),
        root,
        `=${reportForm(adapter)}=${reportFile}`,
      ]);
      return { reward: readFileSync(join(dir, 'reward.txt'), 'utf8').trim(), output: graded.stdout };
    };

    it('rewards 1 when every listed test passed, by the ids swesynth gives them', async () => {
      const { reportFile, results } = ran;
      const passing = results.filter((result) => result.status === 'pass').map((result) => result.id);
      expect(passing).not.toEqual([]);
      expect(await grade(reportFile, { FAIL_TO_PASS: passing.slice(0, 1), PASS_TO_PASS: passing.slice(1) })).toMatchObject({ reward: '1' });
    });

    it('rewards 0 when a listed test failed, was skipped or is missing, and when the report is cut short', async () => {
      const { reportFile, report, results } = ran;
      const failing = results.find((result) => result.status === 'fail')!;
      const skipped = results.find((result) => result.status === 'skip')!;
      const adds = results.find((result) => result.status === 'pass')!.id;
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

it('grades a test named after the folder it runs in by the id swesynth gave it in another copy', async () => {
  const copyOf = (root: string) => {
    mkdirSync(join(root, 'test'), { recursive: true });
    writeFileSync(
      join(root, 'test', 'cwd.test.js'),
      "const test = require('node:test');\nconst { join } = require('node:path');\n" +
        "test(`resolves ${process.cwd()}`, () => {});\ntest(`reads ${join(process.cwd(), 'data.json')}`, () => {});\n",
    );
    return root;
  };
  const validated = await runTests(LocalSandbox.at(copyOf(tempDir('validated'))), nodeTest, {
    testFiles: ['test/cwd.test.js'],
    args: [],
    timeoutMs: 30_000,
  });
  const ids = validated.kind === 'results' ? validated.results.map((result) => result.id) : [];
  expect(ids).toEqual(['test/cwd.test.js::resolves .', 'test/cwd.test.js::reads data.json']);

  // The task's container holds the repository elsewhere.
  const container = copyOf(join(tempDir('container'), 'testbed'));
  const reportFile = join(tempDir('report'), 'report');
  const sandbox = LocalSandbox.at(container);
  const command = nodeTest.command({
    testFiles: ['test/cwd.test.js'],
    only: ['test/cwd.test.js'],
    args: [],
    reportFile,
    timeoutMs: 30_000,
    tools: sandbox.tools,
    version: await installedVersion(sandbox, nodeTest),
  });
  await execa('bash', ['-c', runLine(command, container, 30)], { reject: false });
  const grader = tempDir('grader');
  for (const [name, text] of Object.entries(graderFiles([nodeTest]))) {
    mkdirSync(dirname(join(grader, name)), { recursive: true });
    writeFileSync(join(grader, name), text);
  }
  writeFileSync(join(grader, 'tests.json'), JSON.stringify({ FAIL_TO_PASS: ids.slice(0, 1), PASS_TO_PASS: ids.slice(1) }));
  await execa('node', [
    join(grader, 'grade.mjs'),
    join(grader, 'tests.json'),
    join(grader, 'reward.txt'),
    container,
    `=${reportForm(nodeTest)}=${reportFile}`,
  ]);
  expect(readFileSync(join(grader, 'reward.txt'), 'utf8').trim()).toBe('1');
}, 60_000);
