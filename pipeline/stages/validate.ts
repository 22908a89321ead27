import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { StageContext, StageResult } from './context.js';
import { UserError } from '../common/errors.js';
import { stopProcessesIn } from '../common/process-alive.js';
import { type Judge, judgeWithRetries, type Outcome, openJudge, UNREACHED, type ValidationSpec } from '../validation/judge.js';
import { isGitUrl } from '../repo/profile.js';
import { Progress } from '../common/progress.js';
import type { Candidate } from '../store/records.js';
import { connectEngine, pruneContainers } from '../sandbox/docker.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import { DockerPool, LocalPool, type SandboxPool } from '../sandbox/pool.js';
import { judgeOnQueue } from '../scheduling/bullmq.js';
import type { WorkerThroughput } from '../store/summaries.js';
import { runConcurrently } from '../scheduling/in-process.js';

/** A second opinion on an outcome: combine holds a merged candidate to the union of its parts. */
export type Review = (candidate: Candidate, outcome: Outcome) => Outcome;

/** What setup learned, as one record a judge is opened from, here or on a queue worker. */
function specOf(ctx: StageContext, stage: string): ValidationSpec {
  const { store, profile, options, log } = ctx;
  const environment = ctx.store.environment();
  if (environment.sandbox !== options.sandbox) {
    throw new UserError(
      `this run was set up with the ${environment.sandbox} sandbox`,
      `pass --sandbox ${environment.sandbox}, or --fresh to set it up again`,
    );
  }
  const coverage = options.wholeSuite ? undefined : store.getMeta('coverage');
  if (!options.wholeSuite && !coverage) log.warn(`${stage}: this run has no coverage from setup; every candidate runs the whole suite`);
  return {
    profile,
    location: isGitUrl(ctx.location) ? ctx.location : resolve(ctx.location),
    environment,
    stable: store.baseline().filter((test) => test.verdict === 'stable'),
    coverage: coverage ?? null,
    wholeSuite: options.wholeSuite,
    // A merged candidate is judged by its lists, so combine always asks for them.
    killOnly: options.killOnly && stage === 'validate',
  };
}

/**
 * A judge over this run's sandboxes, in this process, for `use`: the local pool's copies of the
 * workspace or fresh containers, removed when `use` is done.
 */
export async function withJudge<T>(
  ctx: StageContext,
  stage: string,
  use: (judge: Judge) => Promise<T>,
  spec: ValidationSpec = specOf(ctx, stage),
): Promise<T> {
  const { environment } = spec;
  const sandboxDir = join(ctx.runDir, 'sandboxes');
  // Sandboxes of a killed run are stale, and so are the tests still running there; their candidates have no verdict and run again.
  stopProcessesIn(sandboxDir);
  await rm(sandboxDir, { recursive: true, force: true });
  let sandboxes: SandboxPool;
  if (environment.sandbox === 'docker') {
    const docker = await connectEngine();
    // Containers of a run that was killed outright would otherwise stay.
    await pruneContainers(docker, { staleOnly: true });
    sandboxes = new DockerPool(docker, environment.image!, ctx.options.docker.limits);
  } else {
    const node = await nodeRuntime(spec.profile.node);
    sandboxes = new LocalPool(environment.workspace, sandboxDir, spec.profile.env, node, ctx.options.docker.limits.memoryBytes);
  }
  const judge = openJudge(spec, environment.workspace, sandboxes);
  try {
    return await use(judge);
  } finally {
    await sandboxes.dispose();
    await rm(sandboxDir, { recursive: true, force: true });
    const { alone, full } = judge.rebuilds;
    if (alone + full > 0)
      ctx.log.info(`${stage}: ${alone} rebuilds compiled only the changed files, ${full} ran the build (${spec.profile.build})`);
  }
}

/** The run's name on the queue, kept in its store so that a restarted coordinator finds its jobs. */
function queueRunId(ctx: StageContext): string {
  const saved = ctx.store.getMeta('queueRun');
  if (saved) return saved;
  const id = randomUUID();
  ctx.store.setMeta('queueRun', id);
  return id;
}

/**
 * Judges candidates with the chosen scheduler and saves every verdict (with its failed tests) as
 * soon as it is known, so a killed run resumes where it stopped. With BullMQ, returns what each
 * queue worker did.
 */
export async function judgeCandidates(
  ctx: StageContext,
  stage: string,
  pending: Candidate[],
  review: Review = (_candidate, outcome) => outcome,
): Promise<WorkerThroughput[] | undefined> {
  if (pending.length === 0) return undefined;
  const spec = specOf(ctx, stage);
  const progress = new Progress(stage, pending.length, ctx.options.progress);
  const record = (candidate: Candidate, outcome: Outcome) => {
    const reviewed = review(candidate, outcome);
    ctx.store.saveVerdict(reviewed.verdict, reviewed.failed);
    progress.tick(reviewed.verdict.status);
  };
  if (ctx.options.scheduler === 'bullmq') {
    if (!ctx.options.redis) throw new UserError('the bullmq scheduler needs a Redis server', 'pass --redis redis://host:6379');
    return judgeOnQueue({
      redis: ctx.options.redis,
      queue: ctx.options.queue,
      runId: queueRunId(ctx),
      spec,
      pending,
      log: ctx.log,
      onOutcome: record,
    });
  }
  await withJudge(
    ctx,
    stage,
    (judge) => runConcurrently(pending, ctx.options.concurrency, (candidate) => judgeWithRetries(candidate, judge), record),
    spec,
  );
  return undefined;
}

/**
 * More than this share of the candidates in an infrastructure error stops the stage: the tests
 * could not judge them (a runner that cannot start, a worker that cannot open its files).
 */
const ERROR_SHARE_LIMIT = 0.5;

/** The most frequent of these values and how often it occurs. */
function mostCommon(values: string[]): [string, number] {
  const counts = new Map<string, number>();
  for (const value of values) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts].reduce((best, entry) => (entry[1] > best[1] ? entry : best));
}

/**
 * Validate: each candidate runs the test suite in its own sandbox; it is kept when a stable test
 * fails, none times out, one still passes, and reverting it makes every failure pass again.
 */
export async function validate(ctx: StageContext): Promise<StageResult> {
  const { store, log, options } = ctx;
  const done = store.stageSummary('validate');
  // Complete verdicts answer a kill screen's question too; a kill screen's do not give tasks.
  if (done && (options.killOnly || !done.killOnly)) return { stage: 'validate', alreadyDone: true, ...done };
  if (!store.stageSummary('mutate')) throw new Error('validate needs the candidates of the mutate stage');
  if (!options.killOnly) {
    const screened = store.forgetVerdicts('killed');
    if (screened > 0) log.info(`validate: ${screened} candidates killed in a kill screen are judged again for their test lists`);
  }
  const failed = store.forgetVerdicts('error');
  if (failed > 0) log.info(`validate: ${failed} candidates that ended in an infrastructure error are judged again`);

  const pending = store.unvalidated();
  const total = store.candidates().length;
  if (pending.length < total) log.info(`validate: resuming, ${total - pending.length} of ${total} candidates already have a verdict`);
  const workers = await judgeCandidates(ctx, 'validate', pending);

  const counts = store.verdictCounts();
  const errors = store.verdicts().filter((verdict) => verdict.status === 'error');
  if (errors.length > 0) {
    const [reason, times] = mostCommon(errors.map((verdict) => (verdict.detail ?? 'no reason given').split('\n')[0]!));
    const what = `${errors.length} of ${total} candidates ended in an infrastructure error, most often (${times}×): ${reason}`;
    // A dataset from a run this broken would say nothing: stop before the stages after validate, keeping the verdicts.
    if (errors.length > total * ERROR_SHARE_LIMIT) {
      const hint = 'fix the cause and run again: the other verdicts are kept and these candidates judged again';
      throw new UserError(`validate: ${what}`, hint);
    }
    log.warn(`validate: ${what}`);
  }
  // An empty result is never success. The verdicts go, so that a rerun judges every candidate again (with --whole-suite).
  if (total > 0 && store.verdicts().every((verdict) => verdict.status === 'survived' && verdict.detail === UNREACHED)) {
    store.forgetVerdicts('survived');
    throw new UserError(
      `validate: no test executes the code of any of the ${total} candidates: the coverage setup learned maps no test file to a function they change`,
      'check that "source.include" in the repo profile names the files the tests load (or build output made from them), or set "wholeSuite": true in it (or run again with --whole-suite) to run every test for every candidate',
    );
  }
  const summary = {
    candidates: total,
    validatedNow: pending.length,
    verdicts: counts,
    kept: counts.kept ?? 0,
    killOnly: options.killOnly,
    ...(workers ? { workers } : {}),
  };
  store.finishStage('validate', summary);
  const statuses = Object.entries(counts)
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  log.info(
    options.killOnly
      ? `validate: kill screen of ${total} candidates (${statuses})`
      : `validate: ${summary.kept} of ${total} candidates kept (${statuses})`,
  );
  return { stage: 'validate', alreadyDone: false, ...summary };
}
