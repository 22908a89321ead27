import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { filesOf, mutatedFiles } from './candidates.js';
import type { StageContext, StageResult } from './context.js';
import { UserError } from './errors.js';
import { TranspileBuild } from './incremental-build.js';
import { Progress } from './progress.js';
import type { RepoProfile } from './profile.js';
import { type BaselineTest, type Candidate, CoverageMap, type Environment, type FailedTest, type Verdict } from './records.js';
import { runnerNamed } from './runners/index.js';
import { runTests, type TestRequest } from './runners/run-tests.js';
import type { RunnerAdapter, TestResult } from './runners/types.js';
import { connectEngine, pruneContainers } from './sandbox/docker.js';
import { DockerPool, LocalPool, type SandboxPool } from './sandbox/pool.js';
import type { Sandbox } from './sandbox/types.js';
import { runConcurrently } from './scheduling/in-process.js';
import { environmentOf } from './setup.js';
import { selectTests } from './test-selection.js';

export interface Outcome {
  verdict: Verdict;
  failed: FailedTest[];
}

interface Judge {
  environment: Environment;
  adapter: RunnerAdapter;
  request: Omit<TestRequest, 'timeoutMs'>;
  /** Rebuilds after these files changed when the tests use built output; says why it failed, or nothing. */
  rebuild(sandbox: Sandbox, changed: Map<string, string>): Promise<string | undefined>;
  stable: BaselineTest[];
  /** The test files a candidate needs (all when undefined) and its time limit. */
  select(candidate: Candidate): { files?: string[]; timeoutMs: number };
  originals: Map<string, string>;
  sandboxes: SandboxPool;
}

/** A file that crashed on load reports one error instead of its tests; its tests inherit it. */
function crashesByFile(results: TestResult[]): Map<string, TestResult> {
  return new Map(results.filter((result) => result.titlePath[0] === '(file)').map((result) => [result.file, result]));
}

/**
 * Sorts the stable tests into those a run failed and those it passed. A test of a file the run
 * left out (it never executes the changed code) passes as it did at baseline; a stable test
 * missing from the run failed, its file having crashed before reporting it.
 */
function tally(candidate: Candidate, stable: BaselineTest[], runResults: TestResult[], ran: Set<string> | undefined) {
  const results = new Map(runResults.map((result) => [result.id, result]));
  const crashes = crashesByFile(runResults);
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  const failed: FailedTest[] = [];
  for (const test of stable) {
    const result = results.get(test.id);
    if (result?.status === 'pass' || (ran && !ran.has(test.file))) {
      passToPass.push(test.id);
      continue;
    }
    failToPass.push(test.id);
    const failure = result?.failure ?? crashes.get(test.file)?.failure;
    failed.push({ candidateId: candidate.id, testId: test.id, file: test.file, titlePath: test.titlePath, status: result?.status ?? 'missing', ...(failure ? { failure } : {}) });
  }
  return { failToPass, passToPass, failed };
}

/** Runs one candidate in a worker's sandbox and decides whether it makes a task. */
async function judge(candidate: Candidate, ctx: Judge): Promise<Outcome> {
  const started = performance.now();
  const mutatedTexts = mutatedFiles(candidate.sites, (file) => ctx.originals.get(file)!);
  const originalTexts = new Map([...mutatedTexts.keys()].map((file) => [file, ctx.originals.get(file)!]));
  const restore = async (sandbox: Sandbox) => {
    for (const [file, text] of originalTexts) await sandbox.writeFile(file, text);
    return ctx.rebuild(sandbox, originalTexts);
  };
  const sandbox = await ctx.sandboxes.acquire();
  let mutated = false;
  let testsMs = 0;
  const run = async (request: TestRequest) => {
    const result = await runTests(sandbox, ctx.adapter, request);
    // Runners with parallel workers report more test time than passed on the clock.
    if (result.kind === 'results') testsMs += Math.min(result.durationMs, result.results.reduce((sum, test) => sum + test.durationMs, 0));
    return result;
  };
  const verdict = (status: Verdict['status'], extra: Partial<Verdict> = {}): Verdict => ({
    candidateId: candidate.id,
    status,
    failToPass: [],
    passToPass: [],
    durationMs: Math.round(performance.now() - started),
    testsMs: Math.round(testsMs),
    validatedAt: new Date().toISOString(),
    ...extra,
  });
  try {
    mutated = true;
    for (const [file, text] of mutatedTexts) await sandbox.writeFile(file, text);
    const built = await ctx.rebuild(sandbox, mutatedTexts);
    if (built) return { verdict: verdict('build-failed', { detail: built }), failed: [] };
    const selection = ctx.select(candidate);
    if (selection.files?.length === 0) return { verdict: verdict('survived', { detail: 'no test executes the changed code' }), failed: [] };

    /** Runs these test files on the mutant; a run without per-test results ends the candidate. */
    const runMutant = async (only: string[] | undefined, timeoutMs: number): Promise<Outcome | TestResult[]> => {
      const mutantRun = await run({ ...ctx.request, only, timeoutMs });
      if (mutantRun.kind === 'timeout') return { verdict: verdict('timeout', { detail: `no result within ${timeoutMs} ms` }), failed: [] };
      if (mutantRun.kind === 'broken') {
        return { verdict: verdict('error', { detail: `${mutantRun.reason} (exit code ${mutantRun.exitCode}): ${mutantRun.outputTail.slice(-500)}` }), failed: [] };
      }
      // The runner's own timeout can end a whole file (a busy loop): that is a timeout, not a kill.
      const timedOut = mutantRun.results.find((result) => result.status === 'timeout');
      if (timedOut) return { verdict: verdict('timeout', { detail: `${timedOut.id} timed out` }), failed: [] };
      return mutantRun.results;
    };
    // The screen: only the test files that execute the changed code.
    let results = await runMutant(selection.files, selection.timeoutMs);
    if (!Array.isArray(results)) return results;
    let ran = selection.files && new Set(selection.files);
    let { failToPass, passToPass, failed } = tally(candidate, ctx.stable, results, ran);
    if (ran && failToPass.length > 0 && !ctx.adapter.isolatesFiles) {
      // Files share one process in this runner, so a killed mutant can break later files through
      // state it leaves behind (a global it deleted): the complete lists need the whole suite.
      results = await runMutant(undefined, ctx.environment.timeoutMs);
      if (!Array.isArray(results)) return results;
      ran = undefined;
      ({ failToPass, passToPass, failed } = tally(candidate, ctx.stable, results, ran));
    }
    if (failToPass.length === 0) return { verdict: verdict('survived'), failed: [] };
    if (passToPass.length === 0) return { verdict: verdict('no-pass', { failToPass }), failed: [] };

    // The fix: revert the edit and every FAIL_TO_PASS test must pass again.
    const rebuilt = await restore(sandbox);
    mutated = false;
    if (rebuilt) return { verdict: verdict('fix-failed', { failToPass, passToPass, detail: rebuilt }), failed: [] };
    const only = [...new Set(failed.map((test) => test.file))];
    const fixed = await run({ ...ctx.request, only, timeoutMs: ctx.environment.timeoutMs });
    const passing = new Set(fixed.kind === 'results' ? fixed.results.filter((result) => result.status === 'pass').map((result) => result.id) : []);
    const stillFailing = failToPass.filter((id) => !passing.has(id));
    if (stillFailing.length > 0) {
      return { verdict: verdict('fix-failed', { failToPass, passToPass, detail: `still failing after the fix: ${stillFailing.slice(0, 5).join(', ')}` }), failed: [] };
    }
    return { verdict: verdict('kept', { failToPass, passToPass }), failed };
  } finally {
    if (ctx.sandboxes.reuses && mutated) {
      // A reused sandbox gives the next candidate the clean files and their build; one whose clean build fails goes.
      if (await restore(sandbox)) await sandbox.dispose();
      else await ctx.sandboxes.release(sandbox);
    } else {
      await ctx.sandboxes.release(sandbox);
    }
  }
}

/**
 * The per-file compile of a tsc build, when it reproduces the build's own output byte for byte for
 * every file the candidates change; otherwise null, and candidates run the whole build.
 */
async function transpileMatchingBuild(workspace: string, build: string, originals: Map<string, string>, sandboxes: SandboxPool): Promise<TranspileBuild | null> {
  const transpile = TranspileBuild.of(workspace, build);
  if (!transpile) return null;
  const sandbox = await sandboxes.acquire();
  try {
    for (const [file, text] of originals) {
      const emitted = transpile.emit(file, text);
      if (!emitted) return null;
      for (const [output, expected] of emitted) if ((await sandbox.readFile(output).catch(() => undefined)) !== expected) return null;
    }
    return transpile;
  } finally {
    await sandboxes.release(sandbox);
  }
}

/** With coverage, each candidate runs only the test files that execute its code, within their own time. */
function selector(environment: Environment, coverage: CoverageMap | undefined, timeouts: RepoProfile['timeouts']): Judge['select'] {
  if (!coverage) return () => ({ timeoutMs: environment.timeoutMs });
  return (candidate) => selectTests(coverage, candidate.sites, { ...timeouts, wholeSuiteMs: environment.timeoutMs });
}

/** A second opinion on an outcome: combine holds a merged candidate to the union of its parts. */
export type Review = (candidate: Candidate, outcome: Outcome) => Outcome;

/**
 * Judges candidates concurrently, each worker in its own sandbox, and saves every verdict (with
 * its failed tests) as soon as it is known, so a killed run resumes where it stopped.
 */
export async function judgeCandidates(ctx: StageContext, stage: string, pending: Candidate[], review: Review = (_candidate, outcome) => outcome): Promise<void> {
  if (pending.length === 0) return;
  const { store, profile, options, log } = ctx;
  const environment = environmentOf(ctx);
  const originals = new Map<string, string>();
  for (const file of new Set(pending.flatMap((candidate) => filesOf(candidate.sites)))) {
    originals.set(file, await readFile(join(environment.workspace, file), 'utf8'));
  }
  if (environment.sandbox !== options.sandbox) {
    throw new UserError(`this run was set up with the ${environment.sandbox} sandbox`, `pass --sandbox ${environment.sandbox}, or --fresh to set it up again`);
  }
  const sandboxDir = join(ctx.runDir, 'sandboxes');
  // Sandboxes of a killed run are stale; their candidates have no verdict and run again.
  await rm(sandboxDir, { recursive: true, force: true });
  let sandboxes: SandboxPool;
  if (environment.sandbox === 'docker') {
    const docker = await connectEngine();
    // Containers of a run that was killed outright would otherwise stay.
    await pruneContainers(docker, { staleOnly: true });
    sandboxes = new DockerPool(docker, environment.image!, options.docker.limits);
  } else {
    sandboxes = new LocalPool(environment.workspace, sandboxDir, profile.env);
  }

  const coverage = options.wholeSuite ? undefined : store.getMeta('coverage', CoverageMap);
  if (!options.wholeSuite && !coverage) log.warn(`${stage}: this run has no coverage from setup; every candidate runs the whole suite`);
  const build = profile.buildBeforeTests ? profile.build : null;
  const transpile = build && !options.wholeSuite ? await transpileMatchingBuild(environment.workspace, build, originals, sandboxes) : null;
  if (build) log.info(`${stage}: ${transpile ? 'each candidate recompiles only the files it changes' : `each candidate runs the build (${build})`}`);
  const judgeContext: Judge = {
    environment,
    adapter: runnerNamed(profile.runner),
    request: { testFiles: environment.testFiles, args: profile.runnerArgs },
    async rebuild(sandbox, changed) {
      if (!build) return undefined;
      if (transpile) {
        for (const [file, text] of changed) for (const [output, emitted] of transpile.emit(file, text)!) await sandbox.writeFile(output, emitted);
        return undefined;
      }
      const result = await sandbox.exec(build, { timeoutMs: profile.timeouts.installMs });
      return result.timedOut || result.exitCode !== 0 ? `build failed: ${result.outputTail.slice(-500)}` : undefined;
    },
    stable: store.baseline().filter((test) => test.verdict === 'stable'),
    select: selector(environment, coverage, profile.timeouts),
    originals,
    sandboxes,
  };
  const progress = new Progress(stage, pending.length, options.progress);
  try {
    await runConcurrently(pending, options.concurrency, async (candidate) => review(candidate, await judge(candidate, judgeContext)), (_candidate, outcome) => {
      store.saveVerdict(outcome.verdict, outcome.failed);
      progress.tick(outcome.verdict.status);
    });
  } finally {
    await sandboxes.dispose();
    await rm(sandboxDir, { recursive: true, force: true });
  }
}

/**
 * Validate: each candidate runs the test suite in its own sandbox; it is kept when a stable test
 * fails, none times out, one still passes, and reverting it makes every failure pass again.
 */
export async function validate(ctx: StageContext): Promise<StageResult> {
  const { store, log } = ctx;
  const done = store.stageSummary('validate');
  if (done) return { stage: 'validate', alreadyDone: true, ...done };
  if (!store.stageSummary('mutate')) throw new Error('validate needs the candidates of the mutate stage');

  const pending = store.unvalidated();
  const total = store.candidates().length;
  if (pending.length < total) log.info(`validate: resuming, ${total - pending.length} of ${total} candidates already have a verdict`);
  await judgeCandidates(ctx, 'validate', pending);

  const counts = store.verdictCounts();
  const summary = { candidates: total, validatedNow: pending.length, verdicts: counts, kept: counts.kept ?? 0 };
  store.finishStage('validate', summary);
  log.info(`validate: ${summary.kept} of ${total} candidates kept (${Object.entries(counts).map(([status, n]) => `${status} ${n}`).join(', ')})`);
  return { stage: 'validate', alreadyDone: false, ...summary };
}
