import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import type { Verdict } from '../../pipeline/store/records.js';
import { RunStore } from '../../pipeline/store/run-store.js';
import { CLI, EXAMPLE_PROFILE, FIXTURES, holding, swesynth, tempDir } from '../helpers.js';

holding('redis');

const REDIS = process.env.SWESYNTH_TEST_REDIS ?? 'redis://127.0.0.1:6379';
const probe = new Redis(REDIS, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
const redisUp = await probe.connect().then(
  () => true,
  () => false,
);
probe.disconnect();
// Without Redis the suite is skipped on a developer's machine; in CI it must run, and fails.
const withRedis = describe.skipIf(!redisUp && !process.env.CI);

const workers: ResultPromise[] = [];
afterEach(async () => {
  for (const worker of workers.splice(0)) worker.kill('SIGKILL');
});

/**
 * A `swesynth worker` process on its own queue, started in `folder` with its default work folder
 * (relative to where it starts, as for a user); its log collects on `log`.
 */
function startWorker(queue: string, folder: string, extra: string[] = []) {
  const worker = execa(process.execPath, [CLI, 'worker', '--redis', REDIS, '--queue', queue, '--concurrency', '1', ...extra], {
    cwd: folder,
    reject: false,
    all: true,
    buffer: false,
  });
  const state = { process: worker, log: '' };
  worker.all!.on('data', (chunk: Buffer) => (state.log += chunk.toString()));
  workers.push(worker);
  return state;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 120_000): Promise<void> {
  for (const started = Date.now(); !(await condition());) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function verdictsOf(runDir: string): Verdict[] {
  const store = new RunStore(join(runDir, 'run.db'));
  try {
    return store.verdicts();
  } finally {
    store.close();
  }
}

const decisions = (verdicts: Verdict[]) =>
  verdicts
    .map(({ candidateId, status, failToPass, passToPass }) => ({ candidateId, status, failToPass, passToPass }))
    .sort((a, b) => a.candidateId.localeCompare(b.candidateId));

const preparedRuns = new Map<string, string>();

/** A run of `profile` with its candidates made (once per file), copied into a fresh run folder per use. */
async function preparedRun(candidates: number, profile = EXAMPLE_PROFILE): Promise<() => string> {
  const key = `${profile}:${candidates}`;
  if (!preparedRuns.has(key)) {
    const run = join(tempDir('prepared'), 'run');
    for (const stage of ['setup', 'mutate']) {
      const result = await swesynth([
        stage,
        profile,
        '--run-dir',
        run,
        '--max-candidates',
        String(candidates),
        '--baseline-runs',
        '2',
        '--no-progress',
      ]);
      expect(result.exitCode, result.stderr).toBe(0);
    }
    preparedRuns.set(key, run);
  }
  const prepared = preparedRuns.get(key)!;
  return () => {
    const runDir = join(tempDir('run'), 'run');
    mkdirSync(runDir, { recursive: true });
    copyFileSync(join(prepared, 'run.db'), join(runDir, 'run.db'));
    return runDir;
  };
}

const queueName = () => `swesynth-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;
const onQueue = (queue: string) => ['--scheduler', 'bullmq', '--redis', REDIS, '--queue', queue, '--no-progress'];

withRedis('the BullMQ scheduler', () => {
  it('gives exactly the verdicts of the in-process scheduler with a coordinator and three workers', async () => {
    const fresh = await preparedRun(24);
    const inProcess = fresh();
    const local = await swesynth(['validate', EXAMPLE_PROFILE, '--run-dir', inProcess, '--no-progress']);
    expect(local.exitCode, local.stderr).toBe(0);

    const queue = queueName();
    const folder = tempDir('workers');
    for (let i = 0; i < 3; i++) startWorker(queue, folder);
    const distributed = fresh();
    const result = await swesynth(['validate', EXAMPLE_PROFILE, '--run-dir', distributed, '--json', ...onQueue(queue)]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(decisions(verdictsOf(distributed))).toEqual(decisions(verdictsOf(inProcess)));
    expect(decisions(verdictsOf(distributed)).filter((decision) => decision.status === 'kept').length).toBeGreaterThan(10);

    const { workers: throughput } = JSON.parse(result.stdout).stages[0];
    expect(throughput.length).toBeGreaterThanOrEqual(2);
    expect(throughput.reduce((sum: number, worker: { candidates: number }) => sum + worker.candidates, 0)).toBe(24);
    for (const worker of throughput)
      expect(worker).toMatchObject({ worker: expect.stringMatching(/:\d+$/), candidatesPerMinute: expect.any(Number) });
  });

  it('finishes every candidate once when a worker is killed with SIGKILL in the middle of a job', async () => {
    const runDir = (await preparedRun(12))();
    const queue = queueName();
    const folder = tempDir('workers');
    // A short lock, so that the killed worker's job goes to the other worker within seconds.
    const doomed = startWorker(queue, folder, ['--lock-duration', '2000']);
    const coordinator = swesynth(['validate', EXAMPLE_PROFILE, '--run-dir', runDir, '--json', ...onQueue(queue)]);
    await until(() => (doomed.log.match(/judging /g) ?? []).length >= 3, 'the worker to be in the middle of its third job');
    doomed.process.kill('SIGKILL');
    const survivor = startWorker(queue, folder, ['--lock-duration', '2000']);
    const result = await coordinator;
    expect(result.exitCode, result.stderr).toBe(0);

    const verdicts = verdictsOf(runDir);
    expect(verdicts).toHaveLength(12);
    expect(verdicts.filter((verdict) => verdict.status === 'error')).toEqual([]);
    const { workers: throughput } = JSON.parse(result.stdout).stages[0];
    // Each candidate's result came back once, whoever finished it.
    expect(throughput.reduce((sum: number, worker: { candidates: number }) => sum + worker.candidates, 0)).toBe(12);
    const judgedBySurvivor = new Set([...survivor.log.matchAll(/judging (\w+)/g)].map((match) => match[1]));
    const startedByDoomed = [...doomed.log.matchAll(/judging (\w+)/g)].map((match) => match[1]);
    expect(judgedBySurvivor.has(startedByDoomed.at(-1) ?? 'no candidate started')).toBe(true);
  });

  it('resumes a restarted coordinator without enqueuing finished work again', async () => {
    const runDir = (await preparedRun(12))();
    const queue = queueName();
    const worker = startWorker(queue, tempDir('workers'));
    const first = execa(process.execPath, [CLI, 'validate', EXAMPLE_PROFILE, '--run-dir', runDir, ...onQueue(queue)], { reject: false });
    await until(() => verdictsOf(runDir).length >= 4, 'four verdicts in the store');
    first.kill('SIGKILL');
    await first;
    const again = await swesynth(['validate', EXAMPLE_PROFILE, '--run-dir', runDir, '--json', ...onQueue(queue)]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(verdictsOf(runDir)).toHaveLength(12);
    expect(again.stderr).toMatch(/resuming, \d+ of 12 candidates already have a verdict/);
    // The worker judged each candidate once: nothing finished was queued again.
    const judged = [...worker.log.matchAll(/judging (\w+)/g)].map((match) => match[1]);
    expect(new Set(judged).size).toBe(12);
    expect(judged).toHaveLength(12);
  });

  it('gives the complete validation its own verdicts after a kill screen on the same long-lived worker', async () => {
    const tinyLib = join(FIXTURES, 'tiny-lib');
    const runDir = (await preparedRun(4, tinyLib))();
    const queue = queueName();
    startWorker(queue, tempDir('workers'));
    const screen = await swesynth(['validate', tinyLib, '--run-dir', runDir, '--kill-only', ...onQueue(queue)]);
    expect(screen.exitCode, screen.stderr).toBe(0);
    const killed = verdictsOf(runDir).filter((verdict) => verdict.status === 'killed');
    expect(killed.length).toBeGreaterThan(0);

    const complete = await swesynth(['validate', tinyLib, '--run-dir', runDir, ...onQueue(queue)]);
    expect(complete.exitCode, complete.stderr).toBe(0);
    const verdicts = verdictsOf(runDir);
    expect(verdicts).toHaveLength(4);
    expect(verdicts.filter((verdict) => verdict.status === 'killed')).toEqual([]);
    expect(verdicts.filter((verdict) => verdict.status === 'kept').length).toBeGreaterThan(0);
  });

  it('gives up on a worker that died holding a job when no other listens, keeping the verdicts it has', async () => {
    // Short time limits, so that the longest a job can take is seconds.
    const profile = join(tempDir('profile'), 'acme__tiny.json');
    writeFileSync(
      profile,
      JSON.stringify({ name: 'acme/tiny', url: join(FIXTURES, 'tiny-lib'), timeouts: { factor: 1, minimumMs: 1000 } }),
    );
    const runDir = (await preparedRun(4, profile))();
    const queue = queueName();
    const doomed = startWorker(queue, tempDir('workers'), ['--lock-duration', '1000']);
    const coordinator = swesynth(['validate', profile, '--run-dir', runDir, ...onQueue(queue)]);
    await until(() => (doomed.log.match(/judging /g) ?? []).length >= 2, 'the worker to take its second job');
    doomed.process.kill('SIGKILL');
    const given = await coordinator;
    expect(given.exitCode).toBe(1);
    const missing = /(\d) of 4 jobs have no result: (?:1 held by a worker that stopped answering \(\w+\))?/.exec(given.stderr);
    expect(missing, given.stderr).not.toBeNull();
    expect(given.stderr).toMatch(/no worker answered for \d+ s/);
    expect(verdictsOf(runDir).length).toBe(4 - Number(missing![1]));

    // The jobs stayed queued: a new worker finishes them and the rerun collects everything.
    startWorker(queue, tempDir('workers'), ['--lock-duration', '1000']);
    const again = await swesynth(['validate', profile, '--run-dir', runDir, ...onQueue(queue)]);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(verdictsOf(runDir)).toHaveLength(4);
  });

  it('says how to get a Redis server when none answers', async () => {
    const result = await swesynth(['worker', '--redis', 'redis://127.0.0.1:1']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('no Redis answers at redis://127.0.0.1:1');
    expect(result.stderr).toContain('start a Redis server');
  });
});
