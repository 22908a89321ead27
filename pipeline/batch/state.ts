import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { z } from 'zod';
import { UserError } from '../common/errors.js';
import { STAGE_SUMMARIES, type StageName } from '../store/summaries.js';
import { BatchEntry } from './list.js';

/** Where a repository of a batch can fail: at init, or at a stage of its run. */
export const BatchStage = z.enum(['init', ...(Object.keys(STAGE_SUMMARIES) as [StageName, ...StageName[]])]);
export type BatchStage = z.infer<typeof BatchStage>;

/** What one repository of a batch came to: its table row, kept so that a rerun skips it. */
export const RepoOutcome = z.object({
  entry: BatchEntry,
  /** owner/name, once a profile names it. */
  repo: z.string().nullable(),
  /** The profile its run uses: the one init wrote (even one that does not work yet), or the one the list names. */
  profile: z.string().nullable(),
  /** Init wrote the profile for this batch: `--fresh` removes it. */
  wroteProfile: z.boolean(),
  /** Each suite's runner, with its installed version when init's probe saw it. */
  runners: z.array(z.string()),
  packageManager: z.string().nullable(),
  workspace: z.boolean().nullable(),
  build: z.string().nullable(),
  /** The folder of its run, once opened. */
  run: z.string().nullable(),
  /** Tests the baseline found, candidates validated, tasks exported. */
  tests: z.number().int().nullable(),
  candidates: z.number().int().nullable(),
  tasks: z.number().int().nullable(),
  /** The dataset its own run exported. */
  dataset: z.string().nullable(),
  failure: z.object({ stage: BatchStage, message: z.string(), hint: z.string().nullable() }).nullable(),
  /** False while init or the run is under way: a batch killed then takes the repository up again where it was. */
  finished: z.boolean(),
});
export type RepoOutcome = z.infer<typeof RepoOutcome>;

/** The dataset built from every repository that gave tasks, with the profiles it was built from. */
export const BatchDataset = z.object({ path: z.string(), version: z.string(), instances: z.number().int(), profiles: z.array(z.string()) });
export type BatchDataset = z.infer<typeof BatchDataset>;

export const BatchState = z.object({
  list: z.string(),
  /** By entry key (see entryKey). */
  repos: z.record(z.string(), RepoOutcome),
  dataset: BatchDataset.nullable(),
});
export type BatchState = z.infer<typeof BatchState>;

export function readBatchState(path: string, list: string): BatchState {
  if (!existsSync(path)) return { list, repos: {}, dataset: null };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    raw = undefined;
  }
  const parsed = BatchState.safeParse(raw);
  if (!parsed.success) throw new UserError(`batch state ${path} is malformed`, 'pass --fresh to start the batch over');
  return parsed.data;
}

/** Writes the state whole or not at all: a batch killed while writing finds the state before. */
export function writeBatchState(path: string, state: BatchState): void {
  mkdirSync(dirname(path), { recursive: true });
  const partial = `${path}.partial-${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(state, null, 2)}\n`);
  renameSync(partial, path);
}
