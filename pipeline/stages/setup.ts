import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { StageContext, StageResult } from './context.js';
import { learnCoverage } from '../validation/coverage.js';
import { compiledSources } from '../validation/compiler-outputs.js';
import { Progress } from '../common/progress.js';
import { UserError } from '../common/errors.js';
import { BaselineTest, type Environment } from '../store/records.js';
import { listTestFiles, runSuites, type Suite, suiteOfFile, suitesOf } from '../runners/suites.js';
import type { NamedTest, TestResult } from '../runners/types.js';
import { connectEngine, DockerSandbox } from '../sandbox/docker.js';
import { copyDependenciesOut, environmentImage } from '../sandbox/images.js';
import type { Sandbox } from '../sandbox/types.js';
import type { StageSummary } from '../store/summaries.js';
import { installed, materialize, workspaceSandbox } from '../sandbox/workspace.js';
import { takePrepared } from '../sandbox/prepared.js';
import { git } from '../common/git.js';

/** A baseline run may take this long before the repository is refused as too slow or hanging. */
const BASELINE_TIMEOUT_MS = 15 * 60_000;
/** Failing tests a warning names one by one. */
const SHOWN_FAILURES = 10;

async function repoVersion(workspace: string): Promise<string> {
  try {
    return (JSON.parse(await readFile(join(workspace, 'package.json'), 'utf8')) as { version?: string }).version ?? '0.0.0';
  } catch {
    return '0.0.0';
  }
}

/** The messages most failing tests of a run end with, so that a missing program or service shows. */
function commonFailures(results: TestResult[]): string {
  const counts = new Map<string, number>();
  for (const result of results) {
    const failure = result.status === 'fail' || result.status === 'error' ? result.failure : undefined;
    // An assertion on a thrown error may carry no message of its own: the error it got says what broke.
    // Paths differ from file to file (`imported from /…/a.test.js`, or `test/a.test.js` once made
    // repository-relative): without them, one cause counts once.
    const message = (failure?.message || failure?.actual)
      ?.split('\n')[0]
      ?.replace(/(?<![\w.])\/[^\s'"`]+\/[^\s'"`]+|(?<![\w./'"`])[\w.@-]+(?:\/[\w.@-]+)+\.\w+/g, '<path>')
      .trim();
    if (message) counts.set(message.slice(0, 200), (counts.get(message.slice(0, 200)) ?? 0) + 1);
  }
  const top = [...counts].sort((a, b) => b[1] - a[1]).slice(0, 3);
  return top.length === 0 ? '' : `; the failures most often say: ${top.map(([message, count]) => `"${message}" (${count})`).join(', ')}`;
}

/**
 * The tests of a baseline run that took `slowTestMs` or longer, or timed out, and whose runner can
 * leave one test out: each would make every candidate's run that long. Slow tests of other runners
 * stay, with a warning, and so do all of them when they are half the suite or more.
 */
function slowTests(results: TestResult[], suites: Suite[], slowTestMs: number, log: StageContext['log']): Environment['setAside'] {
  const ran = results.filter((test) => test.status !== 'skip');
  // A test its runner ended at the limit (or one that timed out sooner, a hang on the repository's own limit) is one too.
  const slow = ran.filter((test) => test.status === 'timeout' || test.durationMs >= slowTestMs);
  // A suite of slow tests is what the repository has: tasks from it are slow, not impossible.
  const few = 2 * slow.length < ran.length;
  const skippable = few ? slow.filter((test) => suiteOfFile(suites, test.file)?.adapter.skipsTests) : [];
  const seconds = (test: TestResult) => `${test.id} (${(test.durationMs / 1000).toFixed(1)} s)`;
  if (skippable.length > 0)
    log.info(
      `setup: setting aside ${skippable.length} test${skippable.length === 1 ? '' : 's'} slower than ${slowTestMs / 1000} s, ` +
        `left out of every later run: ${skippable.map(seconds).join('; ')}`,
    );
  const kept = slow.filter((test) => !skippable.includes(test));
  if (kept.length > 0)
    log.warn(
      `setup: ${kept.map(seconds).join('; ')} ${kept.length === 1 ? 'is' : 'are'} slower than ${slowTestMs / 1000} s and kept ` +
        `(${few ? 'the runner cannot leave one test out' : 'they are half the suite or more'}): every candidate a slow test's file covers waits for it`,
    );
  return skippable.map(({ id, file, titlePath, durationMs }) => ({ id, file, titlePath, durationMs: Math.round(durationMs) }));
}

/** The suite a test is declared in: its file and the titles around it. */
const suiteKey = (result: Pick<TestResult, 'file' | 'titlePath'>) => JSON.stringify([result.file, result.titlePath.slice(0, -1)]);

/**
 * Suites whose tests are named anew in each run: one run has tests another lacks and lacks tests
 * the other has (titles made from a clock or a random seed: `should parse ${generated}`). Every
 * test of such a suite is flaky, those the baseline runs happened to share too, since a later run
 * names its own.
 */
function renamingSuites(runs: TestResult[][]): Set<string> {
  const members = runs.map((run) => {
    const bySuite = new Map<string, Set<string>>();
    for (const result of run) bySuite.set(suiteKey(result), (bySuite.get(suiteKey(result)) ?? new Set()).add(result.id));
    return bySuite;
  });
  const renaming = new Set<string>();
  const lacks = (ids: Set<string>, other: Set<string>) => [...other].some((id) => !ids.has(id));
  for (const one of members)
    for (const other of members)
      for (const [suite, ids] of one) {
        const others = other.get(suite);
        if (others && lacks(ids, others) && lacks(others, ids)) renaming.add(suite);
      }
  return renaming;
}

/** Classifies each test across the baseline runs. */
export function classifyBaseline(runs: TestResult[][]): BaselineTest[] {
  const byRun = runs.map((run) => new Map(run.map((result) => [result.id, result])));
  const firstSeen = new Map<string, TestResult>();
  for (const run of runs) for (const result of run) if (!firstSeen.has(result.id)) firstSeen.set(result.id, result);
  const renaming = renamingSuites(runs);
  return [...firstSeen.values()].map((first) => {
    const seen = byRun.map((run) => run.get(first.id));
    const statuses = seen.map((result) => result?.status ?? 'missing');
    const durations = seen.flatMap((result) => (result ? [result.durationMs] : []));
    const same = statuses.every((status) => status === statuses[0]) && !renaming.has(suiteKey(first));
    const verdict = !same ? 'flaky' : statuses[0] === 'pass' ? 'stable' : statuses[0] === 'skip' ? 'skipped' : 'failing';
    return {
      id: first.id,
      file: first.file,
      titlePath: first.titlePath,
      statuses,
      verdict,
      durationMs: durations.reduce((sum, duration) => sum + duration, 0) / Math.max(1, durations.length),
    };
  });
}

/** Where the baseline runs: the installed workspace itself, or containers of the environment image. */
interface Place {
  image: string | null;
  open(): Promise<Sandbox>;
  close(sandbox: Sandbox): Promise<void>;
  /** Ends what the sandboxes keep running (warm servers) once setup is over. */
  finish(): Promise<void>;
  summary: Pick<StageSummary<'setup'>, 'node' | 'image' | 'imageBuilt' | 'imageBuildMs' | 'imageBytes'>;
}

async function inWorkspace(source: Pick<StageContext, 'profile' | 'log'>, workspace: string, prepared: boolean): Promise<Place> {
  const { sandbox, node } = prepared ? await workspaceSandbox(source, workspace) : await installed(source, workspace);
  // The workspace is the one sandbox; disposing it ends its servers and leaves its files.
  return { image: null, open: async () => sandbox, close: async () => undefined, finish: () => sandbox.dispose(), summary: { node } };
}

async function inDocker(ctx: StageContext, workspace: string, commit: string): Promise<Place> {
  const { profile, options, log } = ctx;
  const docker = await connectEngine();
  const image = await environmentImage(docker, {
    workspace,
    profile,
    commit,
    baseImage: options.docker.baseImage,
    log: log.info,
    progress: options.progress,
  });
  log.info(
    `setup: image ${image.name} ${image.built ? `built in ${(image.buildMs / 1000).toFixed(1)} s` : 'reused'}, ${(image.sizeBytes / 1e6).toFixed(0)} MB`,
  );
  await copyDependenciesOut(docker, image.name, workspace);
  return {
    image: image.name,
    open: () => DockerSandbox.start(docker, image.name, options.docker.limits),
    close: (sandbox) => sandbox.dispose(),
    finish: async () => undefined,
    summary: {
      node: image.node,
      image: image.name,
      imageBuilt: image.built,
      imageBuildMs: Math.round(image.buildMs),
      imageBytes: image.sizeBytes,
    },
  };
}

/**
 * Setup: the repository into a workspace, installed and built, and a baseline of repeated test
 * runs telling stable tests from flaky and failing ones.
 */
export async function setup(ctx: StageContext): Promise<StageResult> {
  const done = ctx.store.stageSummary('setup');
  if (done) return { stage: 'setup', alreadyDone: true, ...done };
  const { profile, options, log } = ctx;
  const workspace = join(ctx.runDir, 'workspace');

  const prepared = options.sandbox === 'local' && (await takePrepared(ctx, workspace));
  if (prepared) log.info(`setup: taking the workspace init installed and built for this profile, unchanged since, as ${workspace}`);
  else log.info(`setup: bringing ${profile.name} into ${workspace}`);
  const baseCommit = prepared ? await git(workspace, ['rev-parse', 'HEAD']) : await materialize(ctx, workspace);
  const place = options.sandbox === 'docker' ? await inDocker(ctx, workspace, baseCommit) : await inWorkspace(ctx, workspace, prepared);
  const suites = suitesOf(profile);
  // Listed after install and build: a suite may be build output, or written by the build.
  const listed: string[] = [];
  for (const suite of suites) {
    const files = await listTestFiles(workspace, suite);
    if (files.length === 0 && !suite.adapter.findsTestFiles) {
      const where = suite.path === '' ? profile.name : `${profile.name}'s package ${suite.path}`;
      const field = suite.path === '' ? '"tests"' : `"tests" of the package ${suite.path}`;
      throw new UserError(
        `no test files in ${where} match ${suite.tests.join(', ')}`,
        `set ${field} in the repo profile to globs that find the test files`,
      );
    }
    listed.push(...files);
  }
  listed.sort();

  const runOnce = async (i: number, skip: NamedTest[]) => {
    log.info(`setup: baseline run ${i} of ${options.baselineRuns} (${listed.length} test files listed)`);
    const sandbox = await place.open();
    // A test that runs past the slow-test limit is set aside: ended there, a hanging one costs that long, not the whole run's limit.
    const testTimeoutMs = options.slowTestMs > 0 ? options.slowTestMs : undefined;
    const run = await runSuites(sandbox, suites, { testFiles: listed, skip, timeoutMs: BASELINE_TIMEOUT_MS, testTimeoutMs }).finally(() =>
      place.close(sandbox),
    );
    if (run.kind === 'timeout')
      throw new UserError(
        `the test suite did not finish within ${BASELINE_TIMEOUT_MS / 60_000} minutes`,
        'exclude hanging tests in the repo profile',
      );
    if (run.kind === 'broken') {
      throw new UserError(
        `${run.reason} (exit code ${run.exitCode}):\n${run.outputTail.trim()}`,
        'check the runner and test globs in the repo profile',
      );
    }
    return run;
  };
  let first = await runOnce(1, []);
  const setAside = options.slowTestMs > 0 ? slowTests(first.results, suites, options.slowTestMs, log) : [];
  // The baseline starts over without them, so that every run it counts is one like a candidate's.
  if (setAside.length > 0) first = await runOnce(1, setAside);
  const runs = [first.results];
  let baselineMs = first.durationMs;
  for (let i = 2; i <= options.baselineRuns; i++) {
    const run = await runOnce(i, setAside);
    runs.push(run.results);
    baselineMs = Math.max(baselineMs, run.durationMs);
  }
  // A runner that finds its own files is the authority on which files are tests.
  const testFiles = [...new Set([...listed, ...runs.flat().map((result) => result.file)])].sort();

  const baseline = classifyBaseline(runs);
  const count = (verdict: BaselineTest['verdict']) => baseline.filter((test) => test.verdict === verdict).length;
  const summary = {
    tests: baseline.length,
    stable: count('stable'),
    flaky: count('flaky'),
    failing: count('failing'),
    skipped: count('skipped'),
    setAside: setAside.length,
    baselineMs: Math.round(baselineMs),
    baseCommit,
    ...place.summary,
  };
  const figures = `${summary.tests} tests: ${summary.stable} passing, ${summary.failing} failing, ${summary.flaky} flaky, ${summary.skipped} skipped`;
  if (summary.stable === 0) {
    throw new UserError(
      `the baseline has no passing test (${figures})`,
      'make the test suite pass on the chosen commit before generating tasks',
    );
  }
  // Tasks only ever use stable tests, so failing ones cost tasks, not their soundness. What the share guards
  // against is a broken install or environment, which fails tests across the suite: in most files as in
  // most tests. Failures inside files whose other tests pass (a missing program, no desktop) are listed instead.
  const share = summary.stable / Math.max(1, summary.tests - summary.skipped);
  const ran = new Set(baseline.filter((test) => test.verdict !== 'skipped').map((test) => test.file));
  const passingFiles = new Set(baseline.filter((test) => test.verdict === 'stable').map((test) => test.file));
  const fileShare = passingFiles.size / Math.max(1, ran.size);
  if (share < profile.minPassShare) {
    const shares = `${(share * 100).toFixed(1)}% of the tests pass at baseline, in ${passingFiles.size} of ${ran.size} test files`;
    if (fileShare < profile.minPassShare) {
      throw new UserError(
        `only ${shares}, below the required ${(profile.minPassShare * 100).toFixed(0)}% of either (${figures})` +
          commonFailures(runs.at(-1)!),
        'check the install and runner settings in the repo profile, or lower "minPassShare" there',
      );
    }
    const failing = baseline.filter((test) => test.verdict === 'failing' || test.verdict === 'flaky');
    const shown = failing.slice(0, SHOWN_FAILURES).map((test) => test.id);
    log.warn(
      `setup: only ${shares}; tasks use the ${summary.stable} stable tests, and these ${failing.length} are left out: ` +
        `${shown.join('; ')}${failing.length > shown.length ? `; and ${failing.length - shown.length} more` : ''}${commonFailures(runs.at(-1)!)}`,
    );
  }
  const timeoutMs = Math.round(profile.timeouts.factor * baselineMs + profile.timeouts.minimumMs);
  const stableFiles = [...new Set(baseline.filter((test) => test.verdict === 'stable').map((test) => test.file))];
  log.info(`setup: learning which functions each of ${stableFiles.length} test files executes`);
  const coverageProgress = new Progress('coverage', stableFiles.length, options.progress);
  const coverage = await learnCoverage({
    suites,
    testFiles,
    only: stableFiles,
    skip: setAside,
    compiledFrom: compiledSources(workspace),
    env: profile.env,
    // Coverage slows a run down; a file alone must still finish well within the suite's own limit.
    timeoutMs: 2 * timeoutMs,
    concurrency: options.concurrency,
    open: place.open,
    close: place.close,
    onFile: () => coverageProgress.tick('learned'),
  }).finally(() => place.finish());
  const measured = coverage.testFiles.filter((test) => test.measured).length;
  const environment: Environment = {
    repo: profile.name,
    workspace,
    baseCommit,
    repoVersion: await repoVersion(workspace),
    testFiles,
    baselineRuns: options.baselineRuns,
    baselineMs,
    timeoutMs,
    setAside,
    sandbox: options.sandbox,
    image: place.image,
  };
  ctx.store.transaction(() => {
    ctx.store.saveBaseline(baseline);
    ctx.store.setMeta('environment', environment);
    ctx.store.setMeta('coverage', coverage);
    ctx.store.finishStage('setup', { ...summary, coverageMs: coverage.learnedMs, coverageMeasured: measured });
  });
  log.info(
    `setup: ${summary.tests} tests, ${summary.stable} stable, ${summary.flaky} flaky, ${summary.failing} failing; baseline ${(baselineMs / 1000).toFixed(1)} s`,
  );
  log.info(`setup: coverage of ${measured} of ${coverage.testFiles.length} test files in ${(coverage.learnedMs / 1000).toFixed(1)} s`);
  return { stage: 'setup', alreadyDone: false, ...summary, coverageMs: coverage.learnedMs, coverageMeasured: measured };
}
