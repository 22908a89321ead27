import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ava } from '../../pipeline/runners/ava.js';
import { jasmine } from '../../pipeline/runners/jasmine.js';
import { jest } from '../../pipeline/runners/jest.js';
import { runTests, type TestRequest, type TestRun } from '../../pipeline/runners/run-tests.js';
import type { RunnerAdapter } from '../../pipeline/runners/types.js';
import { vitest } from '../../pipeline/runners/vitest.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { copyFixture, coverageByFile, FIXTURES, tempDir } from '../helpers.js';

/**
 * The older majors of each runner, on fixtures of the contract's shape (test/fixtures/<runner>-<major>,
 * plain JavaScript where the major has no TypeScript of its own), checked for what users rely on:
 * the statuses and ids of the basic file, a file that crashes while loading, the values of a
 * failed assertion, a hang ended by the clock, a run of only the files asked for and, where the
 * adapter keeps the runner warm, that a warm run sees what a cold one does. The newest major of
 * each runner passes the whole contract (contract.test.ts).
 */
interface VersionCase {
  adapter: RunnerAdapter;
  fixture: string;
  /** The source file the basic file's "adds" tests. */
  source: string;
  extension: 'js' | 'ts';
  /** How the ids join the suites and the title (ava has no suites; its users write them into the title). */
  separator?: string;
}

const cases: VersionCase[] = [
  ...['22', '23', '24', '25', '26', '27', '28', '29'].map((major) => ({
    adapter: jest,
    fixture: `jest-${major}`,
    source: 'src/math.js',
    extension: 'js' as const,
  })),
  // 1.0 and 1.6: the hook timeout's flag came in 1.3.
  ...['0.34', '1.0', '1', '2', '4'].map((major) => ({
    adapter: vitest,
    fixture: `vitest-${major}`,
    source: 'src/math.ts',
    extension: 'ts' as const,
  })),
  ...['3', '4', '5'].map((major) => ({
    adapter: ava,
    fixture: `ava-${major}`,
    source: 'src/math.js',
    extension: 'js' as const,
    separator: ' › ',
  })),
  ...['3', '4'].map((major) => ({ adapter: jasmine, fixture: `jasmine-${major}`, source: 'src/math.js', extension: 'js' as const })),
];

const statuses = (run: TestRun) => (run.kind === 'results' ? run.results.map((result) => [result.id, result.status]).sort() : run.kind);

describe.each(cases)('$fixture', ({ adapter, fixture, source, extension, separator = ' > ' }) => {
  const [basic, crash, hang] = ['basic', 'crash', 'hang'].map((name) => `test/${name}.test.${extension}`) as [string, string, string];
  const id = (...path: string[]) => `${basic}::${path.join(separator)}`;
  const request = (only: string[], timeoutMs = 30_000): TestRequest => ({ testFiles: [basic, crash, hang], only, args: [], timeoutMs });

  it('reports statuses with stable ids, a crashed file, a failed assertion, and only the files asked for', async () => {
    const run = await runTests(LocalSandbox.at(join(FIXTURES, fixture)), adapter, request([basic, crash]));
    if (run.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(run)}`);
    const byId = new Map(run.results.map((result) => [result.id, result]));
    expect(byId.get(id('math', 'adds'))?.status).toBe('pass');
    expect(byId.get(id('strings', 'adds'))?.status).toBe('pass');
    expect(byId.get(id('math', 'is skipped'))?.status).toBe('skip');
    expect(byId.get(id('math', 'nested', 'throws a TypeError'))).toMatchObject({ status: 'fail', failure: { name: 'TypeError' } });
    const failed = byId.get(id('math', 'fails on purpose'));
    expect(failed).toMatchObject({ status: 'fail', failure: { expected: '3', actual: '2', location: { file: basic } } });
    expect(failed?.failure?.message).toBeTruthy();
    expect(byId.get(`${crash}::(file)`)?.status).toBe('error');
    expect(new Set(run.results.map((result) => result.file))).toEqual(new Set([basic, crash]));
  });

  it('ends a test that never finishes by the clock', async () => {
    const run = await runTests(LocalSandbox.at(join(FIXTURES, fixture)), adapter, request([hang], 4_000));
    expect(run.kind === 'timeout' || (run.kind === 'results' && run.results.some((result) => result.status === 'timeout'))).toBe(true);
  });

  if (!adapter.warmServer) return;
  it('gives the results of a cold run when kept warm, and sees a changed source file', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, fixture), join(tempDir(`versions-${fixture}`), 'repo'));
    try {
      const cold = await runTests(sandbox, adapter, request([basic]));
      expect(cold.kind).toBe('results');
      // A warm run that fails falls back on a cold one, which would hide a server this major breaks.
      const exec = sandbox.exec.bind(sandbox);
      let coldRuns = 0;
      sandbox.exec = (...args) => ((coldRuns += 1), exec(...args));
      expect(statuses(await runTests(sandbox, adapter, { ...request([basic]), warm: true }))).toEqual(statuses(cold));
      const original = await sandbox.readFile(source);
      await sandbox.writeFile(source, original.replace('a + b', 'a - b'));
      const changed = await runTests(sandbox, adapter, { ...request([basic]), warm: true });
      expect(changed.kind === 'results' && changed.results.find((result) => result.id === id('math', 'adds'))?.status).toBe('fail');
      expect(coldRuns).toBe(0);
    } finally {
      await sandbox.dispose();
    }
  });

  if (!adapter.warmCoverage) return;
  it('learns coverage file by file in its warm server, each file credited with its own run only', async () => {
    const sandbox = await LocalSandbox.copyOf(join(FIXTURES, fixture), join(tempDir(`coverage-${fixture}`), 'repo'));
    try {
      const exec = sandbox.exec.bind(sandbox);
      let runnerStarts = 0;
      sandbox.exec = (command, options) => {
        if (typeof command !== 'string' && command.file !== sandbox.tools.node) runnerStarts += 1;
        return exec(command, options);
      };
      const byFile = await coverageByFile(sandbox, adapter, {
        name: fixture,
        args: [],
        testFiles: [basic, crash, hang],
        only: [basic, crash],
      });
      expect(byFile.get(basic)).toMatchObject({ measured: true, executed: { [source]: { add: expect.any(Number) } } });
      expect(byFile.get(crash)!.executed[source]).toBeUndefined();
      expect(runnerStarts).toBe(0);
    } finally {
      await sandbox.dispose();
    }
  });
});

// pnpm (and yarn) write shell scripts to node_modules/.bin, which node cannot run as a script: the
// runners that swesynth starts through node with a preload run from the package's own `bin`.
describe.each([
  { adapter: ava, fixture: 'ava-5', separator: ' › ' },
  { adapter: jasmine, fixture: 'jasmine-4', separator: ' > ' },
])('$fixture installed by pnpm', ({ adapter, fixture, separator }) => {
  it('reports the same statuses as under npm', async () => {
    const dir = copyFixture(fixture);
    rmSync(join(dir, 'package-lock.json'));
    const sandbox = LocalSandbox.at(dir);
    const install = await sandbox.exec('npx -y pnpm@9.8.0 install', { timeoutMs: 150_000 });
    expect(install.exitCode, install.outputTail).toBe(0);
    expect(readFileSync(join(dir, 'node_modules', '.bin', adapter.package!), 'utf8')).toMatch(/^#!\/bin\/sh/);
    const request: TestRequest = { testFiles: ['test/basic.test.js'], args: [], timeoutMs: 60_000 };
    const run = await runTests(sandbox, adapter, request);
    const npmRun = await runTests(LocalSandbox.at(join(FIXTURES, fixture)), adapter, request);
    expect(statuses(run)).toEqual(statuses(npmRun));
    expect(statuses(run)).toContainEqual([`test/basic.test.js::math${separator}adds`, 'pass']);
  }, 240_000);
});
