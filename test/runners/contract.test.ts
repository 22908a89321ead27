import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runTests, type TestRun } from '../../pipeline/runners/run-tests.js';
import type { RunnerAdapter, TestResult } from '../../pipeline/runners/types.js';
import { LocalSandbox } from '../../pipeline/sandbox/local.js';
import { coverageByFile, FIXTURES, onNode } from '../helpers.js';

/**
 * Every runner adapter passes the same contract, on a fixture repository of its own with the
 * real runner installed (test/fixtures/<runner>). Each fixture has:
 * - a basic file: suite "math" with "adds" (passes, through a TypeScript source), "fails on
 *   purpose" (expects 3, gets 2), "is skipped" (where the runner can skip), a nested suite "nested" with "throws a
 *   TypeError"; suite "strings" with "adds" (the same title in another suite); and, where the
 *   runner allows it, "repeats a title" twice in "math" (the first passes, the second fails);
 * - a file that throws while loading;
 * - a file with a test that never finishes.
 * A runner whose every test file is one test (`testPerFile`) has the basic tests in files of their own.
 */
export interface ContractCase {
  adapter: RunnerAdapter;
  /** Folder under test/fixtures. */
  fixture: string;
  /** Runner arguments the fixture needs (the repo profile's runnerArgs), e.g. a TypeScript loader. */
  args: string[];
  basic: string;
  crash: string;
  hang: string;
  /** How the ids join the suites and the title (default ' > '). */
  suiteSeparator?: string;
  /** False where the runner forbids two tests with one title in one suite. */
  repeatedTitles?: boolean;
  /** False where the runner has no way to skip a test. */
  skips?: boolean;
  /**
   * Where each test file is one test (a script whose exit code is its verdict), named after the
   * file (`<file>::<base name>`): `basic` is the file that passes, and these are the ones that fail.
   * Such a suite has no suites, skipped tests or titles to repeat.
   */
  testPerFile?: { failing: string; typeError: string };
  /** Another Node.js binary (a path under test/fixtures) for the toolchain than the one running the tests. */
  node?: string;
}

/** The ids of the basic file's tests, as every adapter must give them. */
function idsOf(contract: ContractCase) {
  const id = (...path: string[]) => `${contract.basic}::${path.join(contract.suiteSeparator ?? ' > ')}`;
  const fileTest = (file: string) => `${file}::${basename(file)}`;
  if (contract.testPerFile) {
    const { failing, typeError } = contract.testPerFile;
    return {
      adds: fileTest(contract.basic),
      otherAdds: null,
      failing: fileTest(failing),
      skipped: null,
      typeError: fileTest(typeError),
      repeated: null,
      crash: fileTest(contract.crash),
    };
  }
  return {
    crash: `${contract.crash}::(file)`,
    adds: id('math', 'adds'),
    otherAdds: id('strings', 'adds'),
    failing: id('math', 'fails on purpose'),
    skipped: contract.skips === false ? null : id('math', 'is skipped'),
    typeError: id('math', 'nested', 'throws a TypeError'),
    repeated: contract.repeatedTitles === false ? null : ([id('math', 'repeats a title'), `${id('math', 'repeats a title')} #2`] as const),
  };
}

/** One case per runner, a module each under ./contract-cases/, exporting `contractCase`. */
const modules = (
  import.meta as unknown as { glob: (pattern: string, options: { eager: true }) => Record<string, { contractCase: ContractCase }> }
).glob('./contract-cases/*.ts', { eager: true });
/** Each case is named by its module: the runner, and the major or Node.js version when there is more than one case. */
const CASES = Object.entries(modules).map(([path, module]) => ({ ...module.contractCase, name: basename(path, '.ts') }));

describe.each(CASES.map((contract) => ({ ...contract, ids: idsOf(contract) })))('the $name contract', (contract) => {
  const { adapter, ids } = contract;
  const basicFiles = [contract.basic, ...(contract.testPerFile ? [contract.testPerFile.failing, contract.testPerFile.typeError] : [])];
  const local = LocalSandbox.at(join(FIXTURES, contract.fixture));
  const sandbox = contract.node ? onNode(local, join(FIXTURES, contract.node)) : local;
  const run = (files: string[], timeoutMs = 30_000): Promise<TestRun> =>
    runTests(sandbox, adapter, { testFiles: [...basicFiles, contract.crash, contract.hang], only: files, args: contract.args, timeoutMs });
  const results = async (files: string[]): Promise<Map<string, TestResult>> => {
    const outcome = await run(files);
    if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
    return new Map(outcome.results.map((result) => [result.id, result]));
  };

  it('reports passing, failing and skipped tests with stable ids, describe paths and durations', async () => {
    const byId = await results(basicFiles);
    expect(byId.get(ids.adds)).toMatchObject({ status: 'pass', file: contract.basic });
    expect(byId.get(ids.failing)?.status).toBe('fail');
    if (ids.skipped) expect(byId.get(ids.skipped)?.status).toBe('skip');
    expect(byId.get(ids.typeError)?.status).toBe('fail');
    for (const result of byId.values()) expect(result.durationMs).toBeGreaterThanOrEqual(0);
    const again = await results(basicFiles);
    expect([...again.keys()].sort()).toEqual([...byId.keys()].sort());
  });

  it.skipIf(ids.otherAdds === null)('tells equal titles apart, in different suites and within one', async () => {
    const byId = await results([contract.basic]);
    expect(byId.get(ids.otherAdds!)?.status).toBe('pass');
    if (ids.repeated) {
      expect(byId.get(ids.repeated[0])?.status).toBe('pass');
      expect(byId.get(ids.repeated[1])?.status).toBe('fail');
    }
  });

  it('gives the message, expected and actual values and location of a failed assertion', async () => {
    const failing = contract.testPerFile?.failing ?? contract.basic;
    const failure = (await results([failing])).get(ids.failing)?.failure;
    expect(failure?.message).toBeTruthy();
    expect(failure).toMatchObject({ expected: '3', actual: '2' });
    expect(failure?.location).toMatchObject({ file: failing, line: expect.any(Number) });
  });

  it('keeps the class of an error thrown by the code under test', async () => {
    const failure = (await results(basicFiles)).get(ids.typeError)?.failure;
    expect(failure?.name).toBe('TypeError');
  });

  it('reports a file that crashes on load as an error of that file, beside the other files', async () => {
    const byId = await results([contract.basic, contract.crash]);
    // A script's one test is the whole file: its crash is that test failing.
    expect(byId.get(ids.crash)?.status).toBe(contract.testPerFile ? 'fail' : 'error');
    expect(byId.get(ids.adds)?.status).toBe('pass');
  });

  it.skipIf(!adapter.skipsTests || contract.testPerFile)(
    'leaves set-aside tests out of a run, by file and title path, and no other',
    async () => {
      // An id is the file and the title path joined by ' > '.
      const setAside = [ids.adds, ids.typeError].map((id) => ({ file: contract.basic, titlePath: id.split('::')[1]!.split(' > ') }));
      const outcome = await runTests(sandbox, adapter, {
        testFiles: basicFiles,
        only: basicFiles,
        skip: setAside,
        args: contract.args,
        timeoutMs: 30_000,
      });
      if (outcome.kind !== 'results') throw new Error(`expected results, got ${JSON.stringify(outcome)}`);
      const after = new Map(outcome.results.map((result) => [result.id, result.status]));
      // Left out: not run at all, or reported as skipped.
      expect(after.get(ids.adds) ?? 'skip').toBe('skip');
      expect(after.get(ids.typeError) ?? 'skip').toBe('skip');
      expect(after.get(ids.failing)).toBe('fail');
      if (ids.otherAdds) expect(after.get(ids.otherAdds)).toBe('pass');
    },
  );

  it('reports a test that never finishes as timed out', async () => {
    // A runner still starting when the clock runs out (tap boots a loader) is killed: a timeout all the same.
    const outcome = await run([contract.hang], 4_000);
    const timedOut =
      outcome.kind === 'timeout' || (outcome.kind === 'results' && outcome.results.some((result) => result.status === 'timeout'));
    expect(timedOut).toBe(true);
  });

  it('lets coverage see the functions a test file executes, in whatever processes the runner starts', async () => {
    // One after the other in one sandbox: a runner kept warm between files must not credit a file with the one before.
    const byFile = await coverageByFile(sandbox, adapter, {
      name: contract.fixture,
      args: contract.args,
      testFiles: [...basicFiles, contract.crash, contract.hang],
      only: [contract.basic, contract.crash],
    });
    expect(byFile.get(contract.basic)).toMatchObject({ measured: true, executed: { 'src/math.ts': { add: expect.any(Number) } } });
    expect(byFile.get(contract.crash)!.executed['src/math.ts']).toBeUndefined();
  });

  it('calls a run in which no test was reported an infrastructure problem, not a verdict', async () => {
    const outcome = await run(['no/such/file.test.js']);
    expect(outcome.kind).toBe('broken');
  });
});
