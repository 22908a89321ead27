import { posix } from 'node:path';
import { glob } from 'tinyglobby';
import type { RepoProfile } from '../repo/profile.js';
import type { Sandbox } from '../sandbox/types.js';
import { runnerNamed } from './index.js';
import { runTests, type TestRequest, type TestRun } from './run-tests.js';
import type { RunnerAdapter, TestResult } from './types.js';

/**
 * One test suite of a repository: a runner that starts in a folder with its own arguments and
 * test files. A repository has one, at its root; a workspace has one per package with tests.
 */
export interface Suite {
  /** The folder the runner starts in, repository-relative; '' is the root. */
  path: string;
  /** The package's name, or the repository's for the root suite. */
  name: string;
  adapter: RunnerAdapter;
  args: string[];
  /** Test file globs, relative to `path`. */
  tests: string[];
}

export function suitesOf(profile: Pick<RepoProfile, 'name' | 'runner' | 'runnerArgs' | 'tests' | 'packages'>): Suite[] {
  const packages = profile.packages ?? [];
  if (packages.length === 0)
    return [{ path: '', name: profile.name, adapter: runnerNamed(profile.runner), args: profile.runnerArgs, tests: profile.tests }];
  return packages.map((pkg) => ({
    path: pkg.path,
    name: pkg.name,
    adapter: runnerNamed(pkg.runner),
    args: pkg.runnerArgs,
    tests: pkg.tests,
  }));
}

/** The suite whose folder holds a repository-relative file: the deepest one, when folders nest. */
export function suiteOfFile(suites: Suite[], file: string): Suite | undefined {
  let found: Suite | undefined;
  for (const suite of suites) {
    if ((suite.path === '' || file.startsWith(`${suite.path}/`)) && suite.path.length >= (found?.path.length ?? -1)) found = suite;
  }
  return found;
}

const withinSuite = (suite: Suite, file: string) => (suite.path === '' ? file : file.slice(suite.path.length + 1));
const withinRepository = (suite: Suite, file: string) => (suite.path === '' || file === '' ? file : posix.join(suite.path, file));

/** The suite's test globs, repository-relative. */
export function repositoryGlobs(suite: Suite): string[] {
  return suite.tests.map((pattern) =>
    pattern.startsWith('!') ? `!${withinRepository(suite, pattern.slice(1))}` : withinRepository(suite, pattern),
  );
}

/** The files of `dir` that the suite's test globs match, repository-relative and sorted. */
export async function listTestFiles(dir: string, suite: Suite): Promise<string[]> {
  const files = await glob(suite.tests, { cwd: posix.join(dir, suite.path), ignore: ['**/node_modules/**'] });
  return files.map((file) => withinRepository(suite, file)).sort();
}

/** A result as the repository names it: its file, id and failure location repository-relative. */
function fromSuite(suite: Suite, result: TestResult): TestResult {
  if (suite.path === '' || result.file === '') return result;
  const file = withinRepository(suite, result.file);
  const location = result.failure?.location;
  return {
    ...result,
    id: `${file}${result.id.slice(result.file.length)}`,
    file,
    ...(result.failure
      ? { failure: { ...result.failure, ...(location ? { location: { ...location, file: withinRepository(suite, location.file) } } : {}) } }
      : {}),
  };
}

/**
 * Where test files share one runner process (mocha, tape), a mutant can fail later files through
 * state it leaves behind (a global it deleted): a suite of that kind runs whole when any of its
 * files is to run. The files to run, or undefined for every suite whole.
 */
export function filesToRun(suites: Suite[], testFiles: string[], files: string[]): string[] | undefined {
  const sharing = new Set(
    files.map((file) => suiteOfFile(suites, file)).filter((suite) => suite !== undefined && !suite.adapter.isolatesFiles),
  );
  if (sharing.size === 0) return files;
  const widened = new Set([...files, ...testFiles.filter((file) => sharing.has(suiteOfFile(suites, file)!))]);
  return widened.size === testFiles.length ? undefined : [...widened].sort();
}

/**
 * What runSuites takes: a test request whose runner arguments and folder come from each suite;
 * its tests to skip are repository-relative, and reach only the runners that can skip a test.
 */
export type SuitesRequest = Omit<TestRequest, 'args' | 'cwd'>;

/**
 * Runs the tests through each suite's runner, one suite after another, each started in its own
 * folder, and merges their results. `testFiles` and `only` are repository-relative, and so are
 * the results. The request's time limit is the whole run's: each suite's runner is given what is
 * left of it. A suite none of whose files is asked for does not run; a suite that reports
 * nothing, or that times out, makes the whole run broken or timed out.
 */
export async function runSuites(sandbox: Sandbox, suites: Suite[], request: SuitesRequest): Promise<TestRun> {
  const results: TestResult[] = [];
  let durationMs = 0;
  let ran = false;
  let outOfMemory: string | undefined;
  const started = performance.now();
  for (const suite of suites) {
    const owned = (file: string) => suiteOfFile(suites, file) === suite;
    const only = request.only?.filter(owned);
    if (only?.length === 0) continue;
    const timeoutMs = Math.round(request.timeoutMs - (performance.now() - started));
    if (timeoutMs <= 0) return { kind: 'timeout', durationMs };
    const skip = suite.adapter.skipsTests
      ? (request.skip ?? []).filter((test) => owned(test.file)).map((test) => ({ ...test, file: withinSuite(suite, test.file) }))
      : [];
    const run = await runTests(sandbox, suite.adapter, {
      ...request,
      skip,
      timeoutMs,
      testFiles: request.testFiles.filter(owned).map((file) => withinSuite(suite, file)),
      ...(only ? { only: only.map((file) => withinSuite(suite, file)) } : {}),
      args: suite.args,
      ...(suite.path ? { cwd: suite.path } : {}),
    });
    durationMs += run.durationMs;
    if (run.kind === 'timeout') return { ...run, durationMs };
    if (run.kind === 'broken') return { ...run, durationMs, reason: suites.length === 1 ? run.reason : `${run.reason} in ${suite.path}` };
    results.push(...run.results.map((result) => fromSuite(suite, result)));
    outOfMemory ??= run.outOfMemory;
    ran = true;
  }
  if (!ran)
    return {
      kind: 'broken',
      reason: 'no suite holds the test files asked for',
      durationMs,
      exitCode: null,
      outputTail: (request.only ?? []).join('\n'),
    };
  return { kind: 'results', results, durationMs, ...(outOfMemory ? { outOfMemory } : {}) };
}
