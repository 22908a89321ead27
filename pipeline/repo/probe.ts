import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { UserError } from '../common/errors.js';
import { installedVersion } from '../runners/run-tests.js';
import { listTestFiles, runSuites, suitesOf } from '../runners/suites.js';
import { LocalSandbox } from '../sandbox/local.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import { preparedWorkspace } from '../sandbox/workspace.js';
import type { RepoProfile } from './profile.js';

/** What a profile does on this machine: installed, built, and one test file (or the whole suite) run. */
export interface ProbeReport {
  /** Each suite's runner with its installed version (and folder, in a workspace). */
  runners: string[];
  /** The test files the profile's globs find after install and build. */
  testFiles: string[];
  /** The command the suite's runs start, as a shell would read it. */
  command: string;
  ran: string[] | 'the whole suite';
  passed: number;
  failed: number;
  skipped: number;
  /** The first failing tests, with the first line of their failure. */
  failures: Array<{ id: string; message: string }>;
  durationMs: number;
  /** Workspace packages whose test globs find no file even after install and build: they have no tests, and leave the profile. */
  untested: string[];
}

const PROBE_TIMEOUT_MS = 5 * 60_000;
/** How many files of a suite the probe tries, smallest first, when the ones before define no test (helpers under a test glob). */
const PROBE_ATTEMPTS = 3;
const SHOWN_FAILURES = 5;

/** The first lines of a runner's output, enough to tell which profile field to change. */
export function firstLines(output: string, count = 20): string {
  return output.trim().split('\n').slice(0, count).join('\n');
}

/**
 * Installs and builds the repository in `workspace` as setup would, lists its test files, and runs
 * one of them (the smallest, so the probe is quick) or, with `wholeSuite`, all of them. A profile
 * that cannot work ends in a UserError that names the field to change.
 */
export async function probe(
  source: { location: string; profile: RepoProfile; log: Logger },
  workspace: string,
  options: { wholeSuite: boolean },
): Promise<ProbeReport> {
  const { profile, log } = source;
  await preparedWorkspace(source, workspace);
  const sandbox = LocalSandbox.at(workspace, profile.env, await nodeRuntime(profile.node));
  const suites = suitesOf(profile);
  const runners: string[] = [];
  const testFiles: string[] = [];
  /** Each suite's files, smallest first: the probe runs the first of each, and steps past those that define no test. */
  const bySize: string[][] = [];
  const commands: string[] = [];
  const untested: string[] = [];
  for (const suite of suites) {
    const where = suite.path ? ` in ${suite.path}` : '';
    const field = suite.path ? `"packages" entry ${suite.path}` : 'the profile';
    const version = await installedVersion(sandbox, suite.adapter, suite.path);
    if (suite.adapter.package && version === null) {
      throw new UserError(
        `${field} runs ${suite.adapter.name}, but the install put no ${suite.adapter.package} package in node_modules${where}`,
        `set "runner" to the runner the tests use (swesynth init --runner <name>), or fix "install"`,
      );
    }
    runners.push([suite.adapter.name, version, where.trim()].filter(Boolean).join(' '));
    const files = await listTestFiles(workspace, suite);
    if (files.length === 0 && !suite.adapter.findsTestFiles) {
      // A package's test script may name a runner with no test to run: the build, which could have written them, has run.
      if (suite.path && suites.length > 1) {
        untested.push(suite.path);
        continue;
      }
      throw new UserError(
        `no test file${where} matches the "tests" of ${field} (${suite.tests.join(', ')}) after install and build`,
        'set "tests" to globs that find the test files',
      );
    }
    testFiles.push(...files);
    const sizes = await Promise.all(files.map(async (file) => ({ file, bytes: (await stat(join(workspace, file))).size })));
    bySize.push(sizes.sort((a, b) => a.bytes - b.bytes).map(({ file }) => file));
    const rendered = suite.adapter.command({
      testFiles: files,
      args: suite.args,
      reportFile: '<report>',
      timeoutMs: PROBE_TIMEOUT_MS,
      tools: sandbox.tools,
      version,
    });
    commands.push(`${suite.path ? `(in ${suite.path}) ` : ''}${[rendered.file, ...rendered.args].join(' ')}`);
  }
  const tested = suites.filter((suite) => !untested.includes(suite.path));
  if (tested.length === 0) {
    throw new UserError(
      `no test file in any package matches its "tests" after install and build (${untested.join(', ')})`,
      'set the "tests" of the "packages" entries to globs that find the test files',
    );
  }
  if (untested.length > 0) log.info(`probe: no test files in ${untested.join(', ')} after the build: left out as packages without tests`);
  const command = commands.join('; ');
  const picks = (attempt: number) => bySize.flatMap((files) => files.slice(attempt, attempt + 1));
  let ran = options.wholeSuite || picks(0).length === 0 ? undefined : picks(0);
  log.info(`probe: ${runners.join(', ')} on ${ran ? ran.join(', ') : `${testFiles.length} test files`}`);
  let run = await runSuites(sandbox, tested, { testFiles, only: ran, timeoutMs: PROBE_TIMEOUT_MS });
  for (let attempt = 1; ran && run.kind === 'broken' && run.noTests && attempt < PROBE_ATTEMPTS && picks(attempt).length > 0; attempt++) {
    log.info(`probe: ${ran.join(', ')} defines no test; trying ${picks(attempt).join(', ')}`);
    ran = picks(attempt);
    run = await runSuites(sandbox, tested, { testFiles, only: ran, timeoutMs: PROBE_TIMEOUT_MS });
  }
  // Many small files without a test (plain assertion scripts, fixtures under a test glob) say nothing of the profile: the suite does.
  if (ran && run.kind === 'broken' && run.noTests) {
    log.info(`probe: the smallest files define no test; running all ${testFiles.length} test files`);
    ran = undefined;
    run = await runSuites(sandbox, tested, { testFiles, timeoutMs: PROBE_TIMEOUT_MS });
  }
  if (run.kind === 'timeout') {
    throw new UserError(
      `a probe run of ${ran ? ran.join(', ') : 'the suite'} did not finish within ${PROBE_TIMEOUT_MS / 60_000} minutes`,
      'check "runnerArgs" (a watch mode?) and "tests"',
    );
  }
  if (run.kind === 'broken') {
    throw new UserError(
      `${run.reason}${ran ? ` in ${ran.join(', ')}` : ''} (exit code ${run.exitCode}) when running \`${command}\`:\n${firstLines(run.outputTail)}`,
      'check "runner", "runnerArgs", "env" and "build" in the profile against this output',
    );
  }
  const count = (status: string) => run.results.filter((result) => result.status === status).length;
  const failing = run.results.filter((result) => result.status === 'fail' || result.status === 'error' || result.status === 'timeout');
  return {
    runners,
    testFiles,
    command,
    ran: ran ?? 'the whole suite',
    passed: count('pass'),
    failed: failing.length,
    skipped: count('skip'),
    failures: failing
      .slice(0, SHOWN_FAILURES)
      .map((result) => ({ id: result.id, message: (result.failure?.message ?? result.status).split('\n')[0]! })),
    durationMs: Math.round(run.durationMs),
    untested,
  };
}
