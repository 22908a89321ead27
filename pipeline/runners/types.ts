import { z } from 'zod';
import type { RepoFacts } from '../repo/facts.js';
import type { Command, Toolchain } from '../sandbox/types.js';

export const TestStatus = z.enum(['pass', 'fail', 'skip', 'error', 'timeout']);
export type TestStatus = z.infer<typeof TestStatus>;

export const Failure = z.object({
  message: z.string(),
  /** The error's class, e.g. AssertionError or TypeError. */
  name: z.string().optional(),
  /** Values as the runner printed them (JavaScript literal syntax where possible). */
  expected: z.string().optional(),
  actual: z.string().optional(),
  /** The assertion that failed, e.g. strictEqual. */
  operator: z.string().optional(),
  stack: z.string().optional(),
  location: z.object({ file: z.string(), line: z.number(), column: z.number() }).optional(),
});
export type Failure = z.infer<typeof Failure>;

export const TestResult = z.object({
  /** Stable and unique: file, describe path and title; duplicates get a ` #n` suffix. */
  id: z.string(),
  /** Repository-relative path of the test file. */
  file: z.string(),
  titlePath: z.array(z.string()),
  status: TestStatus,
  durationMs: z.number(),
  failure: Failure.optional(),
});
export type TestResult = z.infer<typeof TestResult>;

export interface RunnerRequest {
  /** The repository's test files, repository-relative. */
  testFiles: string[];
  /** Run only these test files; undefined runs the whole suite. */
  only?: string[];
  /** Extra runner arguments from the repo profile (a config file, an exclusion). */
  args: string[];
  /**
   * Tests set aside (too slow to run for every candidate), by file and title path: an adapter
   * that `skipsTests` leaves them out of the run; they are never in its report as passing.
   */
  skip?: NamedTest[];
  /** Where the runner's machine-readable report goes (absolute, inside the sandbox). */
  reportFile: string;
  /** The whole run's limit: the sandbox kills the runner's process after it. */
  timeoutMs: number;
  /**
   * How long one test may run before its runner ends it as timed out (testTimeoutOf); a runner
   * whose timeout ends a whole file or run is given the run's limit (runLimitOf) instead.
   */
  testTimeoutMs?: number;
  /**
   * Stop at the first test that does not pass: a kill screen asks only whether one fails. An
   * adapter whose runner cannot stop there runs every test.
   */
  bail?: boolean;
  tools: Toolchain;
  /**
   * The installed version of the runner's package (`package` below), or null when it cannot be
   * read; an adapter passes only the flags and reporter that this version understands.
   */
  version: string | null;
}

/**
 * The limit a runner is given for a run: 80% of the whole run's, so that the runner's own timeout
 * fires before the process is killed and an async hang is reported as that test's (or file's).
 */
export const runLimitOf = ({ timeoutMs }: Pick<RunnerRequest, 'timeoutMs'>): number => Math.floor(timeoutMs * 0.8);

/** One test's limit, for a runner whose timeout ends one test: the request's, within the run's. */
export const testTimeoutOf = (request: Pick<RunnerRequest, 'timeoutMs' | 'testTimeoutMs'>): number =>
  Math.min(request.testTimeoutMs ?? Infinity, runLimitOf(request));

/** A test by its file (relative to where the runner starts) and its describe path and title. */
export interface NamedTest {
  file: string;
  titlePath: string[];
}

export const RUNNER_NAMES = ['node-test', 'jest', 'vitest', 'mocha', 'tap', 'tape', 'ava', 'jasmine', 'nodeunit', 'uvu', 'script'] as const;
export type RunnerName = (typeof RUNNER_NAMES)[number];

/** A runner's command as the repository's test script writes it, split into options and the rest. */
export interface RunnerInvocation {
  /** Options that shape the run, with their values, as runnerArgs keeps them. */
  options: string[];
  /** Words that are not options: files, folders, globs or patterns naming the tests. */
  positional: string[];
}

/** The test files a runner will run: globs (repository-relative) and where they come from. */
export interface DetectedTests {
  tests: string[];
  /** Runner options that keep the run to these files' part of the suite (jest's --selectProjects). */
  args?: string[];
  /** One line for `doctor`: the config file or argument the globs were read from. */
  source: string;
}

/** How detection recognizes a runner in a command and reads the test files it runs. */
export interface RunnerDetection {
  /**
   * The runner's own arguments when `words` (wrappers and environment already removed) start it,
   * e.g. `['jest', '--env', 'node']` → `['--env', 'node']`; null when they do not.
   */
  recognize(words: string[]): string[] | null;
  /** Options taking the next word as their value, so that it is never read as a test file. */
  optionsWithValue: string[];
  /** Options swesynth sets itself or that must not reach its runs (reporters, coverage, watch). */
  managedOptions: string[];
  /** The suite's files: the command's own arguments first, then the runner's config files, then its defaults. */
  tests(invocation: RunnerInvocation, facts: RepoFacts): DetectedTests;
  /**
   * The runner's own config files: one being there says the repository is set up for this runner
   * when no dependency names it (a tool kit such as kcd-scripts installs it and calls it).
   */
  configFiles?: string[];
  /** The runner runs its files as plain Node.js scripts (`node test.js`), each file one test. */
  plainScripts?: true;
  /**
   * A test file that imports one of `modules` runs its own tests when Node.js runs it (`node
   * test.js` with `require('tape')`): a test script that runs it as a plain script runs this
   * runner's tests. `nodeOptions`: the runner takes Node.js options (`--import tsx`) as its own.
   */
  selfRunning?: { modules: string[]; nodeOptions: boolean };
}

/** The names a framework's test files are written in: problem statements read them to cut a repro and find the checked value. */
export interface TestVocabulary {
  /** Modules test files import the framework from; a repro leaves them out. */
  modules: string[];
  /** Functions that declare a test: `it(...)`, `test(...)`, and subtests called as methods, `t.test(...)`. */
  testFunctions: string[];
  /** Assertion functions and methods (`assert(v)`, `assert.equal(v, w)`, `t.is(v, w)`) whose first argument is the value checked. */
  assertions: string[];
  /** Functions whose argument a chained matcher checks: `expect(v).toBe(w)`. */
  expectations: string[];
  /** Properties whose object a chained matcher checks: `v.should.equal(w)`. */
  expectationProperties?: string[];
  /**
   * Each assertion as Node's `assert` writes it, so that a repro runs with Node alone. Keys: an
   * assertion's name (`equal` for `t.equal(v, w)`), or a matcher chain after an expectation
   * (`toBe`, `not.toBe`, `rejects.toThrow`, `deep.equal`) without its `chainWords`; a key with
   * `/n` holds for n arguments only. Values: a template where `$0`, `$1`, ... are the arguments
   * (in a chain, `$0` is the checked value), `$*` all of them and `$+` all but the first.
   */
  nodeAssert?: Record<string, string>;
  /**
   * Functions a `nodeAssert` template calls that Node lacks (a stand-in for the framework's mock
   * function), each by its name with its declaration: a repro that calls one declares it first.
   */
  nodeHelpers?: Record<string, string>;
  /** Objects the framework gives every test file without an import (`jest`), whose methods `nodeAssert` may write. */
  globals?: string[];
  /** Words of a matcher chain that are there to read well (`to`, `be`): no part of its key. */
  chainWords?: string[];
}

/** One test framework: how to call it, and how to read what it reports. */
export interface RunnerAdapter {
  name: RunnerName;
  /** The npm package that provides the runner, whose installed version `command` is told. */
  package?: string;
  /** Packages that provide the runner without `package` (an older layout): where it is missing, theirs is the runner's version. */
  alsoProvidedBy?: string[];
  /**
   * The newest major of `package` the adapter is tested with: what the install adds to a
   * repository whose test script calls the runner and that depends on none (one installed globally).
   */
  newestMajor?: number;
  detection: RunnerDetection;
  vocabulary: TestVocabulary;
  /**
   * Whether each test file runs in a fresh module registry or process, so that one file cannot
   * change what another sees (mocha, tape, jasmine, nodeunit and uvu load every file into one process).
   */
  isolatesFiles: boolean;
  /** Whether `command` can leave single tests out of a run, by title (`RunnerRequest.skip`). */
  skipsTests?: boolean;
  /**
   * Whether a run with no files named finds the suite's files from the runner's own
   * configuration; the profile's test globs then only add to the files its report names.
   */
  findsTestFiles?: boolean;
  /**
   * A server (a file of pipeline/runners/) that keeps the runner loaded between runs: it takes
   * `{ args, env }`, the arguments and environment variables `command` would pass, and runs them
   * in its own process. A server that cannot run a request as a fresh process would says
   * `@@swesynth-cold` in its output, and is not asked again in that sandbox.
   */
  warmServer?: string;
  /**
   * Whether the first warm run in each sandbox is run again in a fresh process and compared: where a
   * repository's setup can make the server's runs differ from a fresh process's (a loader that
   * must be the process's first module), that sandbox then runs every file cold.
   */
  warmTrial?: boolean;
  /**
   * Whether the warm server speaks to the installed version of the runner (`version`) and pays on the
   * toolchain's Node.js (`nodeVersion`, e.g. `v20.20.2`); unset, on every version.
   */
  warmsVersion?(version: string | null, nodeVersion: string | null): boolean;
  /**
   * The warm server runs the tests in its own process and, under NODE_V8_COVERAGE, writes the
   * coverage of each run before it answers (V8 then counts afresh): coverage can be learned warm.
   */
  warmCoverage?: boolean;
  command(request: RunnerRequest): Command;
  /**
   * The same run without the runner's orchestrating process, where that is cheaper (node:test's
   * parent, which only starts a process per file): null when the request cannot run so. Such a
   * run may end without a complete report (a file that crashes while loading) or tell a failure
   * outside any test only by its exit code; runTests then runs `command` instead.
   */
  directCommand?(request: RunnerRequest): Command | null;
  /**
   * Per-test results from the report; `root` turns absolute paths repository-relative. A report
   * the runner did not finish writing is not complete, and is never read as a verdict.
   */
  parse(report: string, root: string): { results: TestResult[]; complete: boolean };
  /**
   * How a task folder's plain-JavaScript grader (dataset/formats/harbor-grade.mjs) reads the report
   * without swesynth: swesynth's JSON lines (one test a line, `{"end":true}` last), jest's JSON
   * (`testResults`, each file's `assertionResults`), or, for a report that only the adapter's own
   * reading can name the tests of, that reading as a module: a file of pipeline/runners/ whose
   * `readReport` is the adapter's `parse` and which imports only Node's modules and its siblings
   * (the task folder holds it compiled). Unset: the grader cannot.
   */
  reportFormat?: 'json-lines' | 'jest-json' | { module: string };
}
