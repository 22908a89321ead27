import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { filesOf, mutatedFiles } from '../store/candidates.js';
import { singleFileBuild } from './incremental-build.js';
import { RepoProfile } from '../repo/profile.js';
import { BaselineTest, type Candidate, CoverageMap, Environment, FailedTest, type Site, Verdict } from '../store/records.js';
import { filesToRun, runSuites, type Suite, suiteOfFile, type SuitesRequest, suitesOf } from '../runners/suites.js';
import type { TestResult } from '../runners/types.js';
import type { SandboxPool } from '../sandbox/pool.js';
import { guardLoops, LOOP_LIMIT } from '../sandbox/loop-guard.js';
import type { Sandbox } from '../sandbox/types.js';
import { screenSteps, selectTests } from './test-selection.js';

/**
 * Everything judging needs besides the candidate and a place to run it: what setup learned and
 * how to validate. A queue worker on another machine receives it once per run.
 */
export const ValidationSpec = z.object({
  profile: RepoProfile,
  /** Where the repository's code comes from: a local path or a git URL. */
  location: z.string(),
  environment: Environment,
  stable: z.array(BaselineTest),
  /** Null runs every candidate against the whole suite. */
  coverage: CoverageMap.nullable(),
  /** The reference way: the whole suite and the full build for every candidate. */
  wholeSuite: z.boolean(),
  /** Only ask whether a stable test fails: a kill screen that stops there, with no lists and no fix check. */
  killOnly: z.boolean(),
});
export type ValidationSpec = z.infer<typeof ValidationSpec>;

/** What judging a candidate decided: its verdict and, for a kept one, the failures it causes. */
export const Outcome = z.object({ verdict: Verdict, failed: z.array(FailedTest) });
export type Outcome = z.infer<typeof Outcome>;

export interface Judge {
  environment: Environment;
  suites: Suite[];
  request: Omit<SuitesRequest, 'timeoutMs'>;
  /** Rebuilds after these files changed when the tests use built output; says why it failed, or nothing. */
  rebuild(sandbox: Sandbox, changed: Map<string, string>): Promise<string | undefined>;
  /** How many rebuilds compiled only the changed files, and how many ran the whole build. */
  rebuilds: { alone: number; full: number };
  stable: BaselineTest[];
  killOnly: boolean;
  /**
   * The runs a candidate needs, in order, each with its test files (all when undefined) and time
   * limit: one run; a kill screen's steps; or, where test files share a process, the covering
   * files and then, for a mutant they kill, their whole suite; none when no test executes the
   * changed code.
   */
  select(candidate: Pick<Candidate, 'sites'>): Array<{ files?: string[]; timeoutMs: number }>;
  /**
   * The test files a check of the fix runs, given the files of the tests the mutant failed: those,
   * or all of them (undefined) where those run as in the suite only with the files before them.
   */
  fixFiles(files: string[]): string[] | undefined;
  /** The clean text of each of these files. */
  originals(files: string[]): Promise<Map<string, string>>;
  sandboxes: SandboxPool;
}

/** The detail of a candidate that survived with no run: coverage says no test executes its changed code. */
export const UNREACHED = 'no test executes the changed code';

/** A file that crashed on load reports one error instead of its tests; its tests inherit it. */
function crashesByFile(results: TestResult[]): Map<string, TestResult> {
  return new Map(results.filter((result) => result.titlePath[0] === '(file)').map((result) => [result.file, result]));
}

/**
 * Sorts the stable tests into those a run failed and those it passed. A test of a file the run
 * left out (it never executes the changed code) passes as it did at baseline; a stable test
 * missing from the run failed, its file having crashed before reporting it.
 */
function tally(candidate: Pick<Candidate, 'id'>, stable: BaselineTest[], runResults: TestResult[], ran: Set<string> | undefined) {
  const results = new Map(runResults.map((result) => [result.id, result]));
  const crashes = crashesByFile(runResults);
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  const failed: FailedTest[] = [];
  /** Whether a failing test reported a failure of its own, rather than being missing or inheriting its file's crash. */
  let failedOnItsOwn = false;
  for (const test of stable) {
    const result = results.get(test.id);
    if (result?.status === 'pass' || (ran && !ran.has(test.file))) {
      passToPass.push(test.id);
      continue;
    }
    failToPass.push(test.id);
    if (result) failedOnItsOwn = true;
    const failure = result?.failure ?? crashes.get(test.file)?.failure;
    failed.push({
      candidateId: candidate.id,
      testId: test.id,
      file: test.file,
      titlePath: test.titlePath,
      status: result?.status ?? 'missing',
      ...(failure ? { failure } : {}),
    });
  }
  return { failToPass, passToPass, failed, failedOnItsOwn };
}

/** Runs one candidate in a sandbox of the pool and decides whether it makes a task. */
export async function judge(candidate: Pick<Candidate, 'id' | 'sites'>, ctx: Judge): Promise<Outcome> {
  const started = performance.now();
  const originalTexts = await ctx.originals(filesOf(candidate.sites));
  const mutatedTexts = mutatedFiles(candidate.sites, (file) => originalTexts.get(file)!);
  /**
   * A reused sandbox as the baseline had it: every file that differs from the workspace's put back, the
   * mutated sources, their build's output and what the tests wrote, added or removed alike.
   */
  const restore = async (sandbox: Sandbox) => {
    if (!sandbox.undoWrites) throw new Error('a sandbox that serves candidate after candidate must put back what each one wrote');
    await sandbox.undoWrites();
  };
  let testsMs = 0;
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
  const runs = ctx.select(candidate);
  if (runs.length === 0) return { verdict: verdict('survived', { detail: UNREACHED }), failed: [] };

  let sandbox = await ctx.sandboxes.acquire();
  let mutated = false;
  const run = async (request: SuitesRequest) => {
    const result = await runSuites(sandbox, ctx.suites, request);
    // Runners with parallel workers report more test time than passed on the clock.
    if (result.kind === 'results')
      testsMs += Math.min(
        result.durationMs,
        result.results.reduce((sum, test) => sum + test.durationMs, 0),
      );
    return result;
  };
  /** Runs the mutant's tests; a run with no verdict on the mutant (a timeout, a broken report) ends judging. */
  const runMutant = async ({ files, timeoutMs }: { files?: string[]; timeoutMs: number }, bail = false) => {
    const mutantRun = await run({ ...ctx.request, only: files, timeoutMs, bail });
    if (mutantRun.kind === 'timeout') {
      const detail = mutantRun.loopLimit ? `a loop ran ${LOOP_LIMIT} times without ending` : `no result within ${timeoutMs} ms`;
      return { ended: verdict('timeout', { detail }) };
    }
    if (mutantRun.outOfMemory) return { ended: verdict('out-of-memory', { detail: mutantRun.outOfMemory }) };
    // The reason on the first line, where summaries group errors by it; the runner's own words below.
    if (mutantRun.kind === 'broken') {
      const detail = `${mutantRun.reason} (exit code ${mutantRun.exitCode})\n${mutantRun.outputTail.slice(-500)}`;
      return { ended: verdict('error', { detail }) };
    }
    // The runner's own timeout can end a whole file (a busy loop): that is a timeout, not a kill.
    const timedOut = mutantRun.results.find((result) => result.status === 'timeout');
    if (timedOut) return { ended: verdict('timeout', { detail: `${timedOut.id} timed out` }) };
    return { tallied: tally(candidate, ctx.stable, mutantRun.results, files && new Set(files)) };
  };
  try {
    mutated = true;
    // A mutant's endless loop ends its run at once, not at the time limit.
    const running = new Map([...mutatedTexts].map(([file, text]) => [file, guardLoops(file, text)]));
    for (const [file, text] of running) await sandbox.writeFile(file, text);
    const built = await ctx.rebuild(sandbox, running);
    if (built) return { verdict: verdict('build-failed', { detail: built }), failed: [] };

    if (ctx.killOnly) {
      for (const [index, step] of runs.entries()) {
        // A runner that stops at the first failure leaves the tests after it missing from its report.
        const { ended, tallied } = await runMutant(step, true);
        if (ended) return { verdict: ended, failed: [] };
        const first = tallied!.failed.find((test) => test.status !== 'missing') ?? tallied!.failed[0];
        if (first)
          return { verdict: verdict('killed', { detail: `${first.testId} failed at step ${index + 1} of ${runs.length}` }), failed: [] };
      }
      return { verdict: verdict('survived'), failed: [] };
    }
    let mutantRun = await runMutant(runs[0]!);
    // The covering files failed: the lists come from the run of their whole suite, when the files share a process.
    if (mutantRun.tallied && mutantRun.tallied.failToPass.length > 0 && runs[1]) mutantRun = await runMutant(runs[1]);
    const { ended, tallied } = mutantRun;
    if (ended) return { verdict: ended, failed: [] };
    const { failToPass, passToPass, failed, failedOnItsOwn } = tallied!;
    if (failToPass.length === 0) return { verdict: verdict('survived'), failed: [] };
    // A mutant that fails every stable test with no test failing on its own (each missing, or its file crashed
    // at load) is a module that does not load, not a bug. Tests that run and fail their own checks point at a
    // bug however many they are: a small suite of one function fails whole.
    if (passToPass.length === 0 && !failedOnItsOwn) return { verdict: verdict('no-pass', { failToPass }), failed: [] };

    // The fix: revert the edit and every FAIL_TO_PASS test must pass again, in a sandbox as the baseline had it:
    // a reused one put back, or a fresh one.
    if (ctx.sandboxes.reuses) await restore(sandbox);
    else {
      const done = sandbox;
      sandbox = await ctx.sandboxes.acquire();
      await ctx.sandboxes.release(done);
    }
    mutated = false;
    const only = ctx.fixFiles([...new Set(failed.map((test) => test.file))]);
    const fixed = await run({ ...ctx.request, only, timeoutMs: ctx.environment.timeoutMs });
    const passing = new Set(
      fixed.kind === 'results' ? fixed.results.filter((result) => result.status === 'pass').map((result) => result.id) : [],
    );
    const stillFailing = failToPass.filter((id) => !passing.has(id));
    if (stillFailing.length > 0) {
      return {
        verdict: verdict('fix-failed', {
          failToPass,
          passToPass,
          // A fix run that gave no results says why, or every FAIL_TO_PASS test would read as failing for no reason.
          detail:
            fixed.kind === 'results'
              ? `still failing after the fix: ${stillFailing.slice(0, 5).join(', ')}`
              : `the fix's run ${fixed.kind === 'timeout' ? 'timed out' : `broke: ${fixed.reason}\n${fixed.outputTail}`}`,
        }),
        failed: [],
      };
    }
    return { verdict: verdict('kept', { failToPass, passToPass }), failed };
  } finally {
    if (ctx.sandboxes.reuses && mutated) {
      // A reused sandbox gives the next candidate the workspace's files; one that cannot have them goes.
      const putBack = await restore(sandbox).then(
        () => true,
        () => false,
      );
      if (putBack) await ctx.sandboxes.release(sandbox);
      else await sandbox.dispose();
    } else {
      await ctx.sandboxes.release(sandbox);
    }
  }
}

type Run = ReturnType<Judge['select']>[number];
/** What choosing a candidate's tests reads of it: where its edits are. */
type Changed = { sites: Array<Pick<Site, 'file' | 'unit'>> };

type Choosing = Pick<ValidationSpec, 'profile' | 'environment' | 'coverage' | 'stable' | 'killOnly'>;

/**
 * Which test files a run of some of them needs. Where files share a process, a file whose stable
 * tests did not all pass in its run on its own needs another file run before it (a setup file run
 * as a test): only the whole suite runs it as the baseline did.
 */
function subsetsOf({ profile, environment, coverage, stable }: Omit<Choosing, 'killOnly'>) {
  const suites = suitesOf(profile);
  const setAside = new Set(environment.setAside.map((test) => test.id));
  const passedAlone = new Map(coverage?.testFiles.map((test) => [test.file, new Set(test.passedAlone)]));
  const shares = (file: string) => suiteOfFile(suites, file)?.adapter.isolatesFiles === false;
  // Without coverage nothing was run alone, and files are taken to run alone as they do in the suite.
  const needsOthers = new Set(
    (coverage ? stable : [])
      .filter((test) => shares(test.file) && !setAside.has(test.id) && !passedAlone.get(test.file)?.has(test.id))
      .map((test) => test.file),
  );
  return {
    /** The files to run for these: themselves, and the whole suite of those that share a process (undefined: all). */
    widened: (files: string[]) => filesToRun(suites, environment.testFiles, files),
    /** Whether a run of just these files gives their tests the results the whole suite's run gives. */
    faithful: (files: string[]) => !files.some((file) => needsOthers.has(file)),
  };
}

/** How a run chooses a candidate's test runs: see Judge.select. */
function runsOf(spec: Choosing, subsets = subsetsOf(spec)): (candidate: Changed) => Run[] {
  const { profile, environment, coverage } = spec;
  const fileMs = new Map(coverage?.testFiles.map((test) => [test.file, test.durationMs]));
  const baselineOf = (files: string[]) => files.reduce((sum, file) => sum + (fileMs.get(file) ?? 0), 0);
  return (candidate) => {
    const wholeSuite = { timeoutMs: environment.timeoutMs };
    if (!coverage) return [wholeSuite];
    const selection = selectTests(coverage, candidate.sites, { ...profile.timeouts, wholeSuiteMs: environment.timeoutMs });
    if (selection.files.length === 0) return [];
    const files = subsets.widened(selection.files);
    if (files?.length === selection.files.length) return spec.killOnly ? screenSteps(selection) : [selection];
    const whole = files === undefined ? wholeSuite : { files, timeoutMs: environment.timeoutMs };
    if (!subsets.faithful(selection.files)) return [whole];
    if (spec.killOnly) return screenSteps(selection);
    // Files sharing one process: a mutant's lists come from their whole suite, since state it leaves behind can
    // fail files that never call it. Its covering files first spare that run for a mutant they miss, and cost
    // one more for a mutant they kill: worth it where they take under a quarter of the suite's time, since most
    // covered mutants are killed.
    const suiteMs = files === undefined ? environment.baselineMs : baselineOf(files);
    return baselineOf(selection.files) < COVERING_FIRST_SHARE * suiteMs ? [selection, whole] : [whole];
  };
}

/** The most of the suite's time a shared-process candidate's covering files can take to run before the suite. */
const COVERING_FIRST_SHARE = 0.25;

/**
 * The test files validation runs for a candidate's mutant, all of them when undefined: the files
 * that can notice its change, and so the ones a check of its fix needs.
 */
export function noticingFilesOf(spec: Omit<Choosing, 'killOnly'>): (candidate: Changed) => string[] | undefined {
  const select = runsOf({ ...spec, killOnly: false });
  return (candidate) => {
    const runs = select(candidate);
    return runs.some((run) => run.files === undefined) ? undefined : [...new Set(runs.flatMap((run) => run.files!))];
  };
}

/**
 * The longest judging a candidate can take, all its attempts included, when every run and build
 * lasts until its time limit: how long a coordinator can wait for one job before it is lost.
 */
export function judgingLimitOf(spec: ValidationSpec): (candidate: Pick<Candidate, 'sites'>) => number {
  const select = runsOf(spec);
  const { environment, profile } = spec;
  // The mutant's build and the clean one put back; the fix check runs the failing files.
  const builds = profile.buildBeforeTests && profile.build ? 2 * profile.timeouts.installMs : 0;
  const fixCheck = spec.killOnly ? 0 : environment.timeoutMs;
  return (candidate) => {
    const runs = select(candidate);
    const once = runs.length === 0 ? 0 : builds + fixCheck + runs.reduce((sum, run) => sum + run.timeoutMs, 0);
    return JUDGE_ATTEMPTS * (once + RETRY_PAUSE_MS);
  };
}

/** Attempts at judging a candidate whose judging threw, and the pause before each next one. */
export const JUDGE_ATTEMPTS = 3;
const RETRY_PAUSE_MS = 1000;

/**
 * The failure policy of every scheduler: a candidate whose judging throws (a sandbox that did not
 * start, a report that could not be read) is judged again, and after JUDGE_ATTEMPTS failures gets
 * an `error` verdict with the reason. One candidate's failure costs that candidate, not the stage.
 */
export async function judgeWithRetries(candidate: Pick<Candidate, 'id' | 'sites'>, ctx: Judge): Promise<Outcome> {
  const started = performance.now();
  let reason = '';
  for (let attempt = 1; attempt <= JUDGE_ATTEMPTS; attempt++) {
    if (attempt > 1) await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
    try {
      return await judge(candidate, ctx);
    } catch (error) {
      reason = error instanceof Error ? error.message : String(error);
    }
  }
  const verdict: Verdict = {
    candidateId: candidate.id,
    status: 'error',
    failToPass: [],
    passToPass: [],
    durationMs: Math.round(performance.now() - started),
    detail: `judging failed ${JUDGE_ATTEMPTS} times: ${reason}`,
    validatedAt: new Date().toISOString(),
  };
  return { verdict, failed: [] };
}

/**
 * The judge of a run's candidates, over the repository's clean checkout in `workspace` (installed
 * and built) and sandboxes from `sandboxes`.
 */
export function openJudge(spec: ValidationSpec, workspace: string, sandboxes: SandboxPool): Judge {
  const { profile, environment } = spec;
  const subsets = subsetsOf(spec);
  const clean = new Map<string, Promise<string>>();
  const build = profile.buildBeforeTests ? profile.build : null;
  const alone = build && !spec.wholeSuite ? singleFileBuild(workspace, build, spec.coverage) : null;
  // Per file, whether building it alone reproduces the build's own output; checked on first use.
  const reproducible = new Map<string, Promise<boolean>>();
  const reproduces = (sandbox: Sandbox, file: string, text: string): Promise<boolean> => {
    if (!reproducible.has(file)) reproducible.set(file, alone ? alone.reproduces(sandbox, file, text) : Promise.resolve(false));
    return reproducible.get(file)!;
  };
  return {
    environment,
    suites: suitesOf(profile),
    // The reference way starts every run cold, as a fresh process.
    request: {
      testFiles: environment.testFiles,
      skip: environment.setAside,
      warm: !spec.wholeSuite,
      direct: !spec.wholeSuite,
    },
    stable: spec.stable,
    killOnly: spec.killOnly,
    select: runsOf(spec, subsets),
    fixFiles: (files) => (subsets.faithful(files) ? files : subsets.widened(files)),
    async originals(files) {
      for (const file of files) if (!clean.has(file)) clean.set(file, readFile(join(workspace, file), 'utf8'));
      return new Map(await Promise.all(files.map(async (file) => [file, await clean.get(file)!] as const)));
    },
    async rebuild(sandbox, changed) {
      if (!build) return undefined;
      const originals = await this.originals([...changed.keys()]);
      // The first call for a file comes with the sandbox still clean, so its output is the build's.
      const each = await Promise.all([...changed.keys()].map((file) => reproduces(sandbox, file, originals.get(file)!)));
      if (each.every(Boolean)) {
        this.rebuilds.alone++;
        for (const [file, text] of changed) await alone!.write(sandbox, file, text);
        return undefined;
      }
      this.rebuilds.full++;
      const result = await sandbox.exec(build, { timeoutMs: profile.timeouts.installMs });
      return result.timedOut || result.exitCode !== 0 ? `build failed: ${result.outputTail.slice(-500)}` : undefined;
    },
    rebuilds: { alone: 0, full: 0 },
    sandboxes,
  };
}
