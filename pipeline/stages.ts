import { existsSync, readFileSync } from 'node:fs';
import { readdir, rm } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Logger, RunOptions, StageContext, StageResult } from './context.js';
import { UserError } from './errors.js';
import { combine } from './combine.js';
import { exportDataset } from './export.js';
import { issues } from './issues.js';
import { mutate } from './mutate.js';
import { RepoProfile, resolveTarget, slugOf } from './profile.js';
import { setup } from './setup.js';
import { combineStats, statsOf, type Stats } from './stats.js';
import { RunStore, type StageName } from './store.js';
import { validate } from './validate.js';

/** The stages in pipeline order; each reads the store records of the one before. */
export const STAGES: ReadonlyArray<{ name: StageName; run: (ctx: StageContext) => Promise<StageResult> }> = [
  { name: 'setup', run: setup },
  { name: 'mutate', run: mutate },
  { name: 'validate', run: validate },
  { name: 'combine', run: combine },
  { name: 'issues', run: issues },
  { name: 'export', run: exportDataset },
];

export interface OpenRunOptions {
  target: string;
  runsDir: string;
  runDir?: string;
  fresh: boolean;
  options: Omit<RunOptions, 'dataset'> & { dataset?: string };
  log: Logger;
}

/** Opens (or, with `fresh`, restarts) the run of a target: its folder and its store. */
export async function openRun({ target, runsDir, runDir, fresh, options, log }: OpenRunOptions): Promise<StageContext> {
  const { profile, location } = resolveTarget(target);
  const dir = resolve(runDir ?? join(runsDir, slugOf(profile)));
  if (fresh && existsSync(dir)) await rm(dir, { recursive: true, force: true });
  const store = new RunStore(join(dir, 'run.db'));
  return { store, profile, location, runDir: dir, options: { ...options, dataset: options.dataset ?? slugOf(profile) }, log };
}

/** The repositories to build images for: one target, or every repository a dataset's manifest names. */
export function sourcesOf(target: string): Array<{ profile: RepoProfile; location: string }> {
  const manifest = join(target, 'manifest.json');
  if (!existsSync(manifest)) return [resolveTarget(target)];
  const repos = (JSON.parse(readFileSync(manifest, 'utf8')) as { repos?: Array<{ profile?: unknown }> }).repos ?? [];
  return repos.map((repo) => {
    const parsed = RepoProfile.safeParse(repo.profile);
    if (!parsed.success) throw new UserError(`${manifest} has no usable profile for a repository`, 'export the dataset again with this version of swesynth');
    return { profile: parsed.data, location: parsed.data.url };
  });
}

/** The stats of runs named by folder or by repo, or of every run under `runsDir`. */
export async function collectStats(targets: readonly string[], runsDir: string): Promise<Stats> {
  const dirs = targets.length > 0
    ? targets.map((target) => (existsSync(join(target, 'run.db')) ? target : join(runsDir, slugOf(resolveTarget(target).profile))))
    : existsSync(runsDir) ? (await readdir(runsDir)).map((name) => join(runsDir, name)).filter((dir) => existsSync(join(dir, 'run.db'))) : [];
  if (dirs.length === 0) throw new UserError(`no runs under ${runsDir}`, 'run `swesynth run <repo>` first, or name run folders');
  const repos = dirs.map((dir) => {
    if (!existsSync(join(dir, 'run.db'))) throw new UserError(`${dir} has no run`, 'run `swesynth run <repo>` first, or name a run folder');
    const store = new RunStore(join(dir, 'run.db'));
    try {
      return statsOf(store);
    } finally {
      store.close();
    }
  });
  return combineStats(repos);
}

/** Refuses to run a stage before the ones it depends on. */
export function requireEarlierStages(ctx: StageContext, stage: StageName, target: string): void {
  for (const earlier of STAGES) {
    if (earlier.name === stage) return;
    if (!ctx.store.stageSummary(earlier.name)) {
      throw new UserError(`the ${earlier.name} stage has not finished for this run`, `run \`swesynth ${earlier.name} ${target}\` first, or \`swesynth run ${target}\` for every stage`);
    }
  }
}
