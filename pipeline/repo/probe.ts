import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import type { Logger } from '../context.js';
import { UserError } from '../errors.js';
import { runnerNamed } from '../runners/index.js';
import { installedVersion, runTests } from '../runners/run-tests.js';
import { LocalSandbox } from '../sandbox/local.js';
import { preparedWorkspace } from '../setup.js';
import type { RepoProfile } from './profile.js';

/** What a profile does on this machine: installed, built, and one test file (or the whole suite) run. */
export interface ProbeReport {
  runner: string;
  runnerVersion: string | null;
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
}

const PROBE_TIMEOUT_MS = 5 * 60_000;
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
  const adapter = runnerNamed(profile.runner);
  const sandbox = LocalSandbox.at(workspace, profile.env);
  const runnerVersion = await installedVersion(sandbox, adapter);
  if (adapter.package && runnerVersion === null) {
    throw new UserError(
      `the profile's runner is ${profile.runner}, but the install put no ${adapter.package} package in node_modules`,
      `set "runner" to the runner the repository's tests use (swesynth init --runner <name>), or fix "install"`,
    );
  }
  const testFiles = (await glob(profile.tests, { cwd: workspace, ignore: ['**/node_modules/**'] })).sort();
  if (testFiles.length === 0 && !adapter.findsTestFiles) {
    throw new UserError(`no test file matches the profile's "tests" (${profile.tests.join(', ')}) after install and build`, 'set "tests" to globs that find the test files');
  }
  const sizes = await Promise.all(testFiles.map(async (file) => ({ file, bytes: (await stat(join(workspace, file))).size })));
  const smallest = sizes.sort((a, b) => a.bytes - b.bytes)[0]?.file;
  const only = options.wholeSuite || smallest === undefined ? undefined : [smallest];
  const rendered = adapter.command({ testFiles, args: profile.runnerArgs, reportFile: '<report>', timeoutMs: PROBE_TIMEOUT_MS, tools: sandbox.tools, version: runnerVersion });
  const command = [rendered.file, ...rendered.args].join(' ');
  log.info(`probe: ${[profile.runner, runnerVersion].filter(Boolean).join(' ')} on ${only ? only[0] : `${testFiles.length} test files`}`);

  const run = await runTests(sandbox, adapter, { testFiles, only, args: profile.runnerArgs, timeoutMs: PROBE_TIMEOUT_MS });
  if (run.kind === 'timeout') {
    throw new UserError(`a probe run of ${only ? only[0] : 'the suite'} did not finish within ${PROBE_TIMEOUT_MS / 60_000} minutes`, 'check "runnerArgs" (a watch mode?) and "tests"');
  }
  if (run.kind === 'broken') {
    throw new UserError(
      `${run.reason} (exit code ${run.exitCode}) when running \`${command}\`:\n${firstLines(run.outputTail)}`,
      'check "runner", "runnerArgs", "env" and "build" in the profile against this output',
    );
  }
  const count = (status: string) => run.results.filter((result) => result.status === status).length;
  const failing = run.results.filter((result) => result.status === 'fail' || result.status === 'error' || result.status === 'timeout');
  return {
    runner: profile.runner,
    runnerVersion,
    testFiles,
    command,
    ran: only ?? 'the whole suite',
    passed: count('pass'),
    failed: failing.length,
    skipped: count('skip'),
    failures: failing.slice(0, SHOWN_FAILURES).map((result) => ({ id: result.id, message: (result.failure?.message ?? result.status).split('\n')[0]! })),
    durationMs: Math.round(run.durationMs),
  };
}
