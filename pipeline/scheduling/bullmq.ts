import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Queue, QueueEvents, UnrecoverableError, Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { z } from 'zod';
import type { Logger } from '../common/logger.js';
import { UserError } from '../common/errors.js';
import { judge, type Judge, openJudge, Outcome, ValidationSpec } from '../validation/judge.js';
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
/** Attempts for a job whose judging threw (a sandbox that would not start); a stalled job has its own bound. */
const ATTEMPTS = 3;
const SWEEP_MS = 5_000;
const specKey = (runId: string) => `swesynth:run:${runId}`;
const jobIdOf = (runId: string, candidateId: string) => `${runId}.${candidateId}`;

/** A job names its run (whose spec waits in Redis) and carries the candidate's edits, nothing else. */
const JobData = z.object({ run: z.string(), candidate: z.object({ id: z.string(), sites: z.array(Site) }) });
type JobData = z.infer<typeof JobData>;

const JobResult = z.object({ outcome: Outcome, worker: z.string(), startedAt: z.number(), finishedAt: z.number() });
type JobResult = z.infer<typeof JobResult>;

async function connect(url: string): Promise<Redis> {
  // BullMQ's blocking commands need ioredis to retry forever rather than give up on a request.
  const redis = new Redis(url, { maxRetriesPerRequest: null, lazyConnect: true, retryStrategy: (times) => (times > 3 ? null : 200) });
  try {
    await redis.connect();
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    throw new UserError(`no Redis answers at ${url}: ${(error as Error).message}`, 'start a Redis server (redis-server) or pass --redis with the URL of one that runs');
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

/**
 * The coordinator's side: puts the run's spec in Redis once, enqueues each pending candidate
 * as a job (a job already there, from before a restart, is not added again), and hands every
 * result to `onOutcome` exactly once. Returns what each worker did.
 */
export async function judgeOnQueue({ redis: url, queue: queueName, runId, spec, pending, log, onOutcome }: QueueRun): Promise<WorkerThroughput[]> {
  const connection = await connect(url);
  const eventsConnection = connection.duplicate();
  const queue = new Queue<JobData>(queueName, { connection });
  const events = new QueueEvents(queueName, { connection: eventsConnection });
  const results: JobResult[] = [];
  try {
    await connection.set(specKey(runId), JSON.stringify(spec));
    await events.waitUntilReady();
    const outstanding = new Map(pending.map((candidate) => [jobIdOf(runId, candidate.id), candidate]));
    let finished!: () => void;
    const allDone = new Promise<void>((resolve) => (finished = resolve));
    let lastSettled = Date.now();
    const settle = (jobId: string, outcome: Outcome) => {
      lastSettled = Date.now();
      const candidate = outstanding.get(jobId);
      if (!candidate) return;
      outstanding.delete(jobId);
      onOutcome(candidate, outcome);
      if (outstanding.size === 0) finished();
    };
    const gaveUp = (jobId: string, reason: string): Outcome => ({
      verdict: { candidateId: outstanding.get(jobId)!.id, status: 'error', failToPass: [], passToPass: [], durationMs: 0, detail: `the queue gave up on it: ${reason}`, validatedAt: new Date().toISOString() },
      failed: [],
    });
    const completed = (jobId: string, value: unknown) => {
      if (!outstanding.has(jobId)) return;
      const result = JobResult.parse(typeof value === 'string' ? JSON.parse(value) : value);
      results.push(result);
      settle(jobId, result.outcome);
    };
    /** Settles a job from its state in Redis: the way to catch up on events missed while away. */
    const sweep = async (jobId: string): Promise<Job<JobData> | undefined> => {
      const job = await queue.getJob(jobId);
      if (!job) return undefined;
      const state = await job.getState();
      if (state === 'completed') completed(jobId, job.returnvalue);
      else if (state === 'failed') settle(jobId, gaveUp(jobId, job.failedReason));
      return job;
    };
    events.on('completed', ({ jobId, returnvalue }) => completed(jobId, returnvalue));
    events.on('failed', ({ jobId }) => {
      // A failed attempt that will be retried is not the end; sweep reads whether it is final.
      if (outstanding.has(jobId)) void sweep(jobId);
    });

    const missing: Candidate[] = [];
    for (const [jobId, candidate] of [...outstanding]) if (!(await sweep(jobId))) missing.push(candidate);
    if (outstanding.size > 0 && missing.length < outstanding.size) log.info(`queue: ${outstanding.size - missing.length} jobs of this run were already queued`);
    await queue.addBulk(
      missing.map((candidate) => ({
        name: 'validate',
        data: { run: runId, candidate: { id: candidate.id, sites: candidate.sites } },
        // Finished jobs stay a week, so a coordinator restarted after a crash collects them instead of redoing them.
        opts: { jobId: jobIdOf(runId, candidate.id), attempts: ATTEMPTS, backoff: { type: 'fixed', delay: 1000 }, removeOnComplete: { age: 7 * 86_400 }, removeOnFail: { age: 7 * 86_400 } },
      })),
    );
    log.info(`queue: ${missing.length} candidates enqueued on ${queueName}, waiting for workers (swesynth worker --redis ${url} --queue ${queueName})`);
    if (outstanding.size > 0) {
      // Reading every outstanding job is for events missed (a dropped connection), so only when none came for a while.
      const timer = setInterval(() => {
        if (Date.now() - lastSettled >= SWEEP_MS) void Promise.all([...outstanding.keys()].map(sweep)).catch(() => undefined);
      }, SWEEP_MS);
      try {
        await allDone;
      } finally {
        clearInterval(timer);
      }
    }
    await connection.del(specKey(runId));
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
  return [...byWorker].map(([worker, jobs]) => {
    const busyMs = jobs.reduce((sum, job) => sum + job.finishedAt - job.startedAt, 0);
    const spanMs = Math.max(...jobs.map((job) => job.finishedAt)) - Math.min(...jobs.map((job) => job.startedAt));
    return { worker, candidates: jobs.length, busyMs, spanMs, candidatesPerMinute: Number((jobs.length / Math.max(spanMs / 60_000, 1e-9)).toFixed(1)) };
  }).sort((a, b) => a.worker.localeCompare(b.worker));
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
    const image = await environmentImage(docker, { workspace, profile, commit: environment.baseCommit, baseImage: options.docker.baseImage, log: options.log.info });
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
export async function runWorker(options: WorkerOptions): Promise<void> {
  const name = `${hostname()}:${process.pid}`;
  const connection = await connect(options.redis);
  await removeLeftovers(options.workDir);
  const prepared = new Map<string, Promise<Prepared>>();
  const prepareRun = async (runId: string): Promise<Prepared> => {
    const raw = await connection.get(specKey(runId));
    // The coordinator is gone or done; the job is an orphan, not worth retrying.
    if (!raw) throw new UnrecoverableError(`run ${runId} has no spec in Redis`);
    const spec = ValidationSpec.parse(JSON.parse(raw));
    return prepare(spec, options, name);
  };
  const worker = new Worker<JobData, JobResult>(
    options.queue,
    async (job) => {
      const startedAt = Date.now();
      const { run, candidate } = JobData.parse(job.data);
      if (!prepared.has(run)) prepared.set(run, prepareRun(run));
      const { judge: judgeContext } = await prepared.get(run)!.catch((error: unknown) => {
        prepared.delete(run);
        throw error;
      });
      const outcome = await judge(candidate, judgeContext);
      return { outcome, worker: name, startedAt, finishedAt: Date.now() };
    },
    { connection, concurrency: options.concurrency, lockDuration: options.lockDurationMs, stalledInterval: options.lockDurationMs, maxStalledCount: 1 },
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
  for (const ready of prepared.values()) await ready.then(({ sandboxes }) => sandboxes.dispose(), () => undefined);
  connection.disconnect();
}
