import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { bullmq, ioredis } from '../common/on-first-use.js';
import type { Logger } from '../common/logger.js';
import { UserError } from '../common/errors.js';
import { type Judge, judgeWithRetries, judgingLimitOf, openJudge, Outcome, ValidationSpec } from '../validation/judge.js';
import { processAlive } from '../common/process-alive.js';
import { slugOf } from '../repo/profile.js';
import { type Candidate, Site } from '../store/records.js';
import type { WorkerThroughput } from '../store/summaries.js';
import { connectEngine, type ContainerLimits } from '../sandbox/docker.js';
import { environmentImage } from '../sandbox/images.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import { DockerPool, LocalPool, type SandboxPool } from '../sandbox/pool.js';
import { materialize, preparedWorkspace } from '../sandbox/workspace.js';

export const DEFAULT_QUEUE = 'swesynth-validate';
/** How long a worker's job lock lasts unless it says otherwise. */
export const DEFAULT_LOCK_DURATION_MS = 30_000;
/**
 * Attempts for a job whose worker could not prepare the repository; judging itself never fails a
 * job (judgeWithRetries), and a stalled job has its own bound.
 */
const ATTEMPTS = 3;
const SWEEP_MS = 5_000;
/** Finished jobs and specs stay a week, so a coordinator restarted after a crash collects the jobs instead of redoing them. */
const KEPT_S = 7 * 86_400;
/**
 * A run keeps its id across validations, but its spec changes between them (a kill screen, then
 * the complete validation): spec and jobs are named by the spec's content, so no worker judges with
 * another validation's spec and no coordinator collects another validation's verdicts.
 */
const specKey = (runId: string, digest: string) => `swesynth:run:${runId}:${digest}`;
const jobIdOf = (runId: string, digest: string, candidateId: string) => `${runId}.${digest}.${candidateId}`;

/** A job names its run and spec (waiting in Redis) and carries the candidate's edits, nothing else. */
const JobData = z.object({ run: z.string(), spec: z.string(), candidate: z.object({ id: z.string(), sites: z.array(Site) }) });
type JobData = z.infer<typeof JobData>;

/** What a worker says when it takes a job: who holds it, and how long its lock outlives the worker. */
const JobTaken = z.object({ worker: z.string(), lockDurationMs: z.number() });

const JobResult = z.object({ outcome: Outcome, worker: z.string(), startedAt: z.number(), finishedAt: z.number() });
type JobResult = z.infer<typeof JobResult>;

async function connect(url: string): Promise<Redis> {
  // BullMQ's blocking commands need ioredis to retry forever rather than give up on a request.
  const redis = new (ioredis().Redis)(url, {
    maxRetriesPerRequest: null,
    lazyConnect: true,
    retryStrategy: (times) => (times > 3 ? null : 200),
  });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new UserError(
      `no Redis answers at ${url}: ${(error as Error).message}`,
      'start a Redis server (redis-server) or pass --redis with the URL of one that runs',
    );
  }
  return redis;
}

interface QueueRun {
  redis: string;
  queue: string;
  /** Stays the same for a run across coordinator restarts, so finished jobs are found, not redone. */
  runId: string;
  spec: ValidationSpec;
  pending: Candidate[];
  log: Logger;
  onOutcome(candidate: Candidate, outcome: Outcome): void;
}

/** A few of these names, and how many more there are. */
const someOf = (names: string[]) => (names.length > 5 ? `${names.slice(0, 5).join(', ')} and ${names.length - 5} more` : names.join(', '));

/**
 * The coordinator's side: puts the run's spec in Redis once, enqueues each pending candidate
 * as a job (a job already there, from before a restart, is not added again; one that ended in an
 * error is judged again), and hands every result to `onOutcome` exactly once. Returns what each
 * worker did. When no worker has answered for longer than the slowest outstanding job can take
 * (its worker died holding it and nothing else listens), it stops with a UserError naming the
 * jobs missing; the results received are already handed on.
 */
export async function judgeOnQueue({
  redis: url,
  queue: queueName,
  runId,
  spec,
  pending,
  log,
  onOutcome,
}: QueueRun): Promise<WorkerThroughput[]> {
  const connection = await connect(url);
  const eventsConnection = connection.duplicate();
  const { Queue, QueueEvents } = bullmq();
  const queue = new Queue<JobData>(queueName, { connection });
  const events = new QueueEvents(queueName, { connection: eventsConnection });
  const results: JobResult[] = [];
  const rawSpec = JSON.stringify(spec);
  const digest = createHash('sha256').update(rawSpec).digest('hex').slice(0, 16);
  try {
    await connection.set(specKey(runId, digest), rawSpec, 'EX', KEPT_S);
    await events.waitUntilReady();
    const outstanding = new Map(pending.map((candidate) => [jobIdOf(runId, digest, candidate.id), candidate]));
    let finished!: () => void;
    let stopped!: (error: Error) => void;
    const allDone = new Promise<void>((resolve, reject) => ((finished = resolve), (stopped = reject)));
    /** The last time a worker took a job or returned one. */
    let lastHeard = Date.now();
    const settle = (jobId: string, outcome: Outcome) => {
      lastHeard = Date.now();
      const candidate = outstanding.get(jobId);
      if (!candidate) return;
      outstanding.delete(jobId);
      onOutcome(candidate, outcome);
      if (outstanding.size === 0) finished();
    };
    const gaveUp = (jobId: string, reason: string): Outcome => ({
      verdict: {
        candidateId: outstanding.get(jobId)!.id,
        status: 'error',
        failToPass: [],
        passToPass: [],
        durationMs: 0,
        detail: `the queue gave up on it: ${reason}`,
        validatedAt: new Date().toISOString(),
      },
      failed: [],
    });
    const resultOf = (value: unknown) => JobResult.parse(typeof value === 'string' ? JSON.parse(value) : value);
    const completed = (jobId: string, result: JobResult) => {
      if (!outstanding.has(jobId)) return;
      results.push(result);
      settle(jobId, result.outcome);
    };
    /** Settles a job from its state in Redis: the way to catch up on events missed while away. */
    const sweep = async (jobId: string): Promise<void> => {
      const job = await queue.getJob(jobId);
      const state = await job?.getState();
      if (state === 'completed') completed(jobId, resultOf(job!.returnvalue));
      else if (state === 'failed') settle(jobId, gaveUp(jobId, job!.failedReason));
    };
    events.on('completed', ({ jobId, returnvalue }) => completed(jobId, resultOf(returnvalue)));
    events.on('failed', ({ jobId }) => {
      // A failed attempt that will be retried is not the end; sweep reads whether it is final.
      if (outstanding.has(jobId)) void sweep(jobId);
    });
    // A worker that dies holding a job leaves it locked for as long as its lock lasts, then once more until a stall check;
    // the workers say how long when they take a job.
    let longestLockMs: number | undefined;
    events.on('progress', ({ jobId, data }) => {
      const taken = JobTaken.safeParse(data);
      if (!outstanding.has(jobId) || !taken.success) return;
      lastHeard = Date.now();
      longestLockMs = Math.max(longestLockMs ?? 0, taken.data.lockDurationMs);
    });

    // A job from before a restart: collected when it has a verdict, judged again when it ended in an error.
    const missing: Candidate[] = [];
    for (const [jobId, candidate] of [...outstanding]) {
      const job = await queue.getJob(jobId);
      const state = await job?.getState();
      const result = state === 'completed' ? resultOf(job!.returnvalue) : undefined;
      if (result && result.outcome.verdict.status !== 'error') completed(jobId, result);
      else if (!job || state === 'completed' || state === 'failed') {
        await job?.remove();
        missing.push(candidate);
      }
    }
    if (outstanding.size > 0 && missing.length < outstanding.size)
      log.info(`queue: ${outstanding.size - missing.length} jobs of this run were already queued`);
    await queue.addBulk(
      missing.map((candidate) => ({
        name: 'validate',
        data: { run: runId, spec: digest, candidate: { id: candidate.id, sites: candidate.sites } },
        opts: {
          jobId: jobIdOf(runId, digest, candidate.id),
          attempts: ATTEMPTS,
          backoff: { type: 'fixed', delay: 1000 },
          removeOnComplete: { age: KEPT_S },
          removeOnFail: { age: KEPT_S },
        },
      })),
    );
    log.info(
      `queue: ${missing.length} candidates enqueued on ${queueName}, waiting for workers (swesynth worker --redis ${url} --queue ${queueName})`,
    );

    const limitOf = judgingLimitOf(spec);
    const limits = new Map([...outstanding].map(([jobId, candidate]) => [jobId, limitOf(candidate)]));
    const { install, build, timeouts } = spec.profile;
    // A worker's first job of the repository waits for its install and build.
    const preparationMs = (install ? timeouts.installMs : 0) + (build ? timeouts.installMs : 0);
    const patienceMs = () =>
      Math.max(0, ...[...outstanding.keys()].map((jobId) => limits.get(jobId)!)) +
      2 * (longestLockMs ?? DEFAULT_LOCK_DURATION_MS) +
      (results.length === 0 ? preparationMs : 0);
    const lost = async (silentMs: number) => {
      await Promise.all([...outstanding.keys()].map(sweep));
      if (outstanding.size === 0) return;
      const states = await Promise.all(
        [...outstanding].map(async ([jobId, candidate]) => ({ id: candidate.id, state: await queue.getJobState(jobId) })),
      );
      const held = states.filter((job) => job.state === 'active').map((job) => job.id);
      const waiting = states.filter((job) => job.state !== 'active').map((job) => job.id);
      const parts = [
        held.length > 0 ? `${held.length} held by a worker that stopped answering (${someOf(held)})` : '',
        waiting.length > 0 ? `${waiting.length} never taken (${someOf(waiting)})` : '',
      ];
      const silence = `no worker answered for ${Math.round(silentMs / 1000)} s, longer than the slowest job left can take`;
      stopped(
        new UserError(
          `${silence}; ${outstanding.size} of ${pending.length} jobs have no result: ${parts.filter(Boolean).join(', ')}`,
          `start a worker (swesynth worker --redis ${url} --queue ${queueName}) and run again: ` +
            `the ${pending.length - outstanding.size} verdicts received are kept, and the jobs stay queued`,
        ),
      );
    };
    if (outstanding.size > 0) {
      let checking = false;
      const timer = setInterval(() => {
        const silentMs = Date.now() - lastHeard;
        // Reading every outstanding job is for events missed (a dropped connection), so only when none came for a while.
        if (checking || silentMs < SWEEP_MS) return;
        checking = true;
        const check = silentMs >= patienceMs() ? lost(silentMs) : Promise.all([...outstanding.keys()].map(sweep));
        void check.catch(() => undefined).finally(() => (checking = false));
      }, SWEEP_MS);
      try {
        await allDone;
      } finally {
        clearInterval(timer);
      }
    }
    await connection.del(specKey(runId, digest));
  } finally {
    await events.close();
    await queue.close();
    connection.disconnect();
    eventsConnection.disconnect();
  }
  return throughputOf(results);
}

function throughputOf(results: JobResult[]): WorkerThroughput[] {
  const byWorker = new Map<string, JobResult[]>();
  for (const result of results) byWorker.set(result.worker, [...(byWorker.get(result.worker) ?? []), result]);
  return [...byWorker]
    .map(([worker, jobs]) => {
      const busyMs = jobs.reduce((sum, job) => sum + job.finishedAt - job.startedAt, 0);
      const spanMs = Math.max(...jobs.map((job) => job.finishedAt)) - Math.min(...jobs.map((job) => job.startedAt));
      return {
        worker,
        candidates: jobs.length,
        busyMs,
        spanMs,
        candidatesPerMinute: Number((jobs.length / Math.max(spanMs / 60_000, 1e-9)).toFixed(1)),
      };
    })
    .sort((a, b) => a.worker.localeCompare(b.worker));
}

export interface WorkerOptions {
  redis: string;
  queue: string;
  concurrency: number;
  /** Where the worker keeps the repositories it prepared, one folder per repository and commit. */
  workDir: string;
  /** How long a job's lock lasts without renewal: after a worker dies, its job waits this long for another. */
  lockDurationMs: number;
  docker: { baseImage: string; limits: ContainerLimits };
  log: Logger;
}

interface Prepared {
  judge: Judge;
  sandboxes: SandboxPool;
}

/**
 * Readies a repository for judging on this machine: its code at the run's commit, installed and
 * built (local sandbox) or in its environment image (Docker). Done once per repository and
 * commit, and kept in the work folder for later runs; workers on one machine share it.
 */
async function prepare(spec: ValidationSpec, options: WorkerOptions, name: string): Promise<Prepared> {
  const { environment, profile } = spec;
  const dir = join(options.workDir, `${slugOf(profile)}@${environment.baseCommit.slice(0, 12)}-${environment.sandbox}`);
  const workspace = join(dir, 'workspace');
  if (!existsSync(join(dir, 'ready'))) {
    options.log.info(`worker ${name}: preparing ${profile.name} at ${environment.baseCommit.slice(0, 12)}`);
    await mkdir(options.workDir, { recursive: true });
    // Prepared aside and moved into place at once: another worker may be preparing it too.
    const scratch = await mkdtemp(join(options.workDir, `.preparing-${process.pid}-`));
    const source = { location: spec.location, profile, log: options.log };
    if (environment.sandbox === 'local') await preparedWorkspace(source, join(scratch, 'workspace'));
    else await materialize(source, join(scratch, 'workspace'));
    await writeFile(join(scratch, 'ready'), new Date().toISOString());
    await rename(scratch, dir).catch(() => rm(scratch, { recursive: true, force: true }));
  }
  let sandboxes: SandboxPool;
  if (environment.sandbox === 'docker') {
    const docker = await connectEngine();
    const image = await environmentImage(docker, {
      workspace,
      profile,
      commit: environment.baseCommit,
      baseImage: options.docker.baseImage,
      log: options.log.info,
    });
    sandboxes = new DockerPool(docker, image.name, options.docker.limits);
  } else {
    const dir = await mkdtemp(join(options.workDir, `.sandboxes-${process.pid}-`));
    sandboxes = new LocalPool(workspace, dir, profile.env, await nodeRuntime(profile.node), options.docker.limits.memoryBytes);
  }
  return { judge: openJudge(spec, workspace, sandboxes), sandboxes };
}

/** Folders of this machine's workers that were killed while preparing a repository or judging. */
async function removeLeftovers(workDir: string): Promise<void> {
  const entries = await readdir(workDir).catch(() => []);
  for (const entry of entries) {
    const owner = /^\.(?:preparing|sandboxes)-(\d+)-/.exec(entry)?.[1];
    if (owner && !processAlive(Number(owner))) await rm(join(workDir, entry), { recursive: true, force: true });
  }
}

/**
 * The worker's side: takes validation jobs of any run from the queue, `concurrency` at a time,
 * until SIGINT or SIGTERM. Test runs are child processes, so the event loop stays free to renew
 * the locks of the jobs in hand; a worker that dies leaves its jobs to others once their locks lapse.
 */
export async function runWorker(given: WorkerOptions): Promise<void> {
  // Runners start inside the sandboxes, so every path handed to them must not depend on the folder the worker started in.
  const options = { ...given, workDir: resolve(given.workDir) };
  const name = `${hostname()}:${process.pid}`;
  const connection = await connect(options.redis);
  await removeLeftovers(options.workDir);
  /** A judge per spec content: a run's spec changes between its validations. */
  const prepared = new Map<string, Promise<Prepared>>();
  const prepareSpec = async (runId: string, digest: string): Promise<Prepared> => {
    const raw = await connection.get(specKey(runId, digest));
    // The coordinator is gone or done; the job is an orphan, not worth retrying.
    if (!raw) throw new (bullmq().UnrecoverableError)(`run ${runId} has no spec ${digest} in Redis`);
    return prepare(ValidationSpec.parse(JSON.parse(raw)), options, name);
  };
  const worker = new (bullmq().Worker)<JobData, JobResult>(
    options.queue,
    async (job) => {
      const startedAt = Date.now();
      const { run, spec, candidate } = JobData.parse(job.data);
      await job.updateProgress({ worker: name, lockDurationMs: options.lockDurationMs } satisfies z.infer<typeof JobTaken>);
      if (!prepared.has(spec)) prepared.set(spec, prepareSpec(run, spec));
      const { judge: judgeContext } = await prepared.get(spec)!.catch((error: unknown) => {
        prepared.delete(spec);
        throw error;
      });
      const outcome = await judgeWithRetries(candidate, judgeContext);
      return { outcome, worker: name, startedAt, finishedAt: Date.now() };
    },
    {
      connection,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.lockDurationMs,
      maxStalledCount: 1,
    },
  );
  worker.on('error', (error) => options.log.warn(`worker ${name}: ${error.message}`));
  worker.on('active', (job) => options.log.info(`worker ${name}: judging ${job.data.candidate.id}`));
  worker.on('completed', (job) => options.log.info(`worker ${name}: ${job.data.candidate.id} ${job.returnvalue.outcome.verdict.status}`));
  await worker.waitUntilReady();
  options.log.info(`worker ${name}: waiting for jobs on ${options.queue} at ${options.redis} (concurrency ${options.concurrency})`);
  await new Promise<void>((resolve) => {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => resolve());
  });
  options.log.info(`worker ${name}: finishing the jobs in hand`);
  await worker.close();
  for (const ready of prepared.values())
    await ready.then(
      ({ sandboxes }) => sandboxes.dispose(),
      () => undefined,
    );
  connection.disconnect();
}
