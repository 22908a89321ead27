import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { SearchOutcome } from '../solve/search.js';
import type { Logger } from '../common/logger.js';
import type { StageContext, StageResult } from '../stages/context.js';
import { keepRunShape, runOptionsFrom, type OptionValues, type ResolvedOptions, type RunOptions } from './options.js';
import { UserError } from '../common/errors.js';
import { ownedFolder, removeOrphans } from '../common/process-alive.js';
import { selfCheckOf, sourceOfRun } from '../stages/export.js';
import { requireEarlierStages, STAGES } from '../stages/index.js';
import type { StageName } from '../store/run-store.js';
import { writeDataset } from '../dataset/write.js';
import { readDataset } from '../dataset/read.js';
import { evaluate, loadDataset, readPredictions, treeBuilds, type EvaluationReport, type Prediction } from '../dataset/grading.js';
import type { DatasetRepo, Instance } from '../dataset/instance.js';
import { Progress } from '../common/progress.js';
import { predictionsOf, solve, type SolveReport } from '../solve/solve.js';
import type { GradingSummary } from '../solve/report.js';
import { preparedWorkspace } from '../sandbox/workspace.js';
import { RepoProfile, slugOf } from '../repo/profile.js';
import { resolveTarget } from '../repo/target.js';
import { combineStats, statsOf, type Stats } from '../dataset/stats.js';
import { RunStore } from '../store/run-store.js';
import { baseFromBundle, bundleFile } from '../dataset/formats/bundle.js';
import { connectEngine, type ContainerLimits } from '../sandbox/docker.js';
import { buildTaskImage } from '../sandbox/task-image.js';

export interface OpenRunOptions {
  target: string;
  options: ResolvedOptions;
  log: Logger;
  /** Hold the run to the options it was made with (see keepRunShape); a dataset of finished runs only reads them. */
  keepShape: boolean;
}

/** Opens (or, with `fresh`, restarts) the run of a target: its folder and its store, with the options it runs with. */
export async function openRun({ target, options, log, keepShape }: OpenRunOptions): Promise<StageContext> {
  const { profile, location } = resolveTarget(target);
  const { values } = options;
  const dir = resolve(values.runDir ?? join(values.runsDir, slugOf(profile)));
  if (values.fresh && existsSync(dir)) await rm(dir, { recursive: true, force: true });
  const store = new RunStore(join(dir, 'run.db'));
  try {
    const kept = keepShape
      ? keepRunShape(options, {
          dir,
          recorded: store.getMeta('options'),
          finished: (stage) => store.stageSummary(stage) !== undefined,
          record: (shape) => store.setMeta('options', shape),
        })
      : values;
    return {
      store,
      profile,
      location,
      runDir: dir,
      options: withProfileChoices(
        runOptionsFrom(keepShape ? lastExportPlace(kept, options.chosen, store) : kept, slugOf(profile)),
        profile,
      ),
      log,
    };
  } catch (error) {
    store.close();
    throw error;
  }
}

/** What the profile decides of a run's options: a profile whose coverage reaches nothing runs the whole suite for every candidate. */
export function withProfileChoices(options: RunOptions, profile: RepoProfile): RunOptions {
  return profile.wholeSuite ? { ...options, wholeSuite: true } : options;
}

/** Every stage in order, each named to `onStage` as it starts; a kill screen's verdicts make no tasks, so it stops after validate. */
export async function runStages(ctx: StageContext, onStage: (stage: StageName) => void = () => undefined): Promise<StageResult[]> {
  const results: StageResult[] = [];
  for (const stage of STAGES) {
    onStage(stage.name);
    results.push(await stage.run(ctx));
    if (stage.name === 'validate' && ctx.options.killOnly) break;
  }
  return results;
}

/** Where the run exported last, unless told where to export: a rerun then reports that export instead of writing another. */
function lastExportPlace(values: OptionValues, chosen: ResolvedOptions['chosen'], store: RunStore): OptionValues {
  const last = store.exports().at(-1);
  if (!last || chosen.has('out') || chosen.has('dataset') || chosen.has('datasetVersion')) return values;
  return { ...values, out: dirname(dirname(last.path)), dataset: last.dataset };
}

/** One dataset version from the finished runs of several repositories, self-checked like any export. */
export async function exportFromRuns(targets: readonly string[], options: ResolvedOptions, log: Logger) {
  if (options.values.runDir) throw new UserError('--run-dir names one run; a dataset of several runs finds each under the runs folder');
  if (!options.values.dataset) throw new UserError('a dataset of several runs needs a name', 'pass --dataset <name>');
  const runs: StageContext[] = [];
  try {
    for (const target of targets) {
      const ctx = await openRun({ target, options: { ...options, values: { ...options.values, fresh: false } }, log, keepShape: false });
      runs.push(ctx);
      requireEarlierStages(ctx, 'export', target);
    }
    const first = runs[0]!.options;
    return await writeDataset(
      runs.map((run) => sourceOfRun(run)),
      {
        outDir: first.outDir,
        dataset: first.dataset,
        version: first.datasetVersion,
        split: first.split,
        testShare: first.testShare,
        formats: first.formats,
        limits: first.docker.limits,
        publishedImages: first.publishedImages,
        selfCheck: selfCheckOf(runs),
      },
    );
  } finally {
    for (const run of runs) run.store.close();
  }
}

const GRADING = '.grading';

/**
 * Each repository of a dataset, prepared once (code at the commit, installed) under `workDir` on
 * first use, and reused by later evaluations and searches of the same commit. The code comes from
 * the dataset's own bundle where it has one, so that a dataset works wherever it is copied to;
 * else from the profile's url.
 */
function preparedWorkspaces(
  dataset: Pick<ReturnType<typeof loadDataset>, 'dir' | 'repos' | 'instances'>,
  workDir: string,
  log: Logger,
): (name: string) => Promise<string> {
  const prepared = new Map<string, Promise<string>>();
  const fromBundle = async (repo: DatasetRepo, task: Instance, workspace: string) => {
    const code = `${workspace}.code`;
    await rm(code, { recursive: true, force: true });
    try {
      await baseFromBundle(dataset.dir, task, code);
      await preparedWorkspace({ location: code, profile: { ...repo.profile, commit: null }, log }, workspace);
    } finally {
      await rm(code, { recursive: true, force: true });
    }
  };
  const fromUrl = async (repo: DatasetRepo, workspace: string) => {
    const commit = await preparedWorkspace({ location: repo.profile.url, profile: repo.profile, log }, workspace);
    if (commit !== repo.commit)
      throw new UserError(
        `${repo.name} at ${repo.profile.url} gives commit ${commit}, not the dataset's ${repo.commit}`,
        'point the profile url in the manifest at the repository the dataset was made from',
      );
  };
  return (name) => {
    if (!prepared.has(name)) {
      const repo = dataset.repos.find((each) => each.name === name)!;
      const workspace = resolve(workDir, repo.name.replace('/', '__'), repo.commit.slice(0, 12));
      const task = dataset.instances.find((instance) => instance.repo === name);
      const ready = existsSync(join(workspace, '.swesynth-ready'))
        ? Promise.resolve(workspace)
        : (task && existsSync(join(dataset.dir, bundleFile(name))) ? fromBundle(repo, task, workspace) : fromUrl(repo, workspace)).then(
            async () => {
              await writeFile(join(workspace, '.swesynth-ready'), repo.commit);
              return workspace;
            },
          );
      prepared.set(name, ready);
    }
    return prepared.get(name)!;
  };
}

/**
 * Grades predictions on a dataset. Each repository is prepared once from its profile (code at
 * the commit, installed) under `workDir` and reused by later evaluations of the same commit.
 */
export async function evaluateDataset(
  flags: {
    dataset: string;
    predictions?: string;
    instance?: string;
    patchFile?: string;
    concurrency?: number;
    workDir: string;
    progress: boolean;
  },
  log: Logger,
) {
  const dataset = loadDataset(flags.dataset);
  const { instances } = dataset;
  let predictions: Prediction[];
  let graded = instances;
  if (flags.instance) {
    if (!flags.patchFile) throw new UserError('--instance needs --patch-file', 'pass the patch to grade');
    graded = instances.filter((instance) => instance.instance_id === flags.instance);
    if (graded.length === 0) throw new UserError(`the dataset has no instance ${flags.instance}`);
    predictions = [{ instance_id: flags.instance, model_name_or_path: 'patch-file', model_patch: readFileSync(flags.patchFile, 'utf8') }];
  } else if (flags.predictions) {
    predictions = readPredictions(flags.predictions);
  } else {
    throw new UserError('nothing to grade', 'pass --predictions <file>, or --instance <id> with --patch-file <file>');
  }
  return gradePredictions(dataset, graded, predictions, flags, log);
}

/** Grades predictions on a dataset's instances, in task trees beside the prepared workspaces, with a progress bar. */
async function gradePredictions(
  dataset: Pick<ReturnType<typeof loadDataset>, 'dir' | 'repos' | 'instances' | 'profileOf'>,
  instances: Instance[],
  predictions: Prediction[],
  flags: { concurrency?: number; workDir: string; progress: boolean },
  log: Logger,
): Promise<EvaluationReport> {
  const { repos, profileOf } = dataset;
  const workspaceOf = preparedWorkspaces(dataset, flags.workDir, log);
  // Task trees beside the prepared workspaces, where the next evaluation removes those of a killed one.
  await removeOrphans(flags.workDir, GRADING);
  const workDir = ownedFolder(flags.workDir, GRADING, 'tasks');
  const progress = new Progress('eval', instances.length, flags.progress);
  try {
    const setAsideOf = (name: string) => repos.find((each) => each.name === name)!.setAside;
    const builds = treeBuilds();
    const report = await evaluate(instances, predictions, {
      workspaceOf,
      profileOf,
      setAsideOf,
      workDir,
      concurrency: flags.concurrency,
      onResult: (result) => progress.tick(result.status),
      onBuild: builds.count,
    });
    if (builds.summary()) log.info(`eval: builds: ${builds.summary()}`);
    return report;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * Runs the search-based repair baseline on a dataset and writes its SWE-bench predictions and its
 * report to `out`; with `grade`, grades the predictions as `eval` does and reports the difference.
 */
export async function solveDataset(
  flags: { dataset: string; budget: number; out?: string; concurrency?: number; workDir: string; grade?: boolean; progress: boolean },
  log: Logger,
): Promise<{ report: SolveReport; grading: GradingSummary | null; out: string }> {
  const dataset = loadDataset(flags.dataset);
  const out = resolve(flags.out ?? join('.swesynth', 'solve', dataset.name, dataset.version));
  const workspaceOf = preparedWorkspaces(dataset, flags.workDir, log);
  await removeOrphans(flags.workDir, GRADING);
  const workDir = ownedFolder(flags.workDir, GRADING, 'search');
  // Each outcome is kept as it comes, so a killed search resumes where it stopped.
  const kept = `${out}.outcomes.jsonl`;
  const done = searchedBefore(kept, flags.budget, new Set(dataset.instances.map((instance) => instance.instance_id)));
  if (done.size > 0) log.info(`solve: ${done.size} tasks searched before this run was stopped are not searched again`);
  await mkdir(dirname(kept), { recursive: true });
  const progress = new Progress('solve', dataset.instances.length - done.size, flags.progress);
  let report: SolveReport;
  try {
    report = await solve(dataset, {
      budget: flags.budget,
      workspaceOf,
      workDir,
      concurrency: flags.concurrency,
      done,
      onCoverage: (repo) => log.info(`solve: learned which functions the tests of ${repo} execute`),
      onOutcome: (outcome) => {
        appendFileSync(kept, `${JSON.stringify({ budget: flags.budget, outcome })}\n`);
        progress.tick(outcome.status);
      },
    });
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
  const predictions = predictionsOf(report.outcomes);
  let grading: GradingSummary | null = null;
  if (flags.grade) {
    const graded = await gradePredictions(dataset, dataset.instances, predictions, flags, log);
    const resolved = new Set(graded.instances.filter((result) => result.status === 'resolved').map((result) => result.instance_id));
    grading = {
      resolved: graded.resolved,
      rate: graded.rate,
      low: graded.low,
      high: graded.high,
      claimedUnresolved: report.outcomes
        .filter((outcome) => outcome.status === 'found' && !resolved.has(outcome.instance_id))
        .map((outcome) => outcome.instance_id),
      resolvedByStrategy: Object.fromEntries(
        Object.keys(report.byStrategy).map((strategy) => [
          strategy,
          dataset.instances.filter((instance) => instance.mutation.operator === strategy && resolved.has(instance.instance_id)).length,
        ]),
      ),
    };
  }
  // Written whole or not at all: a folder beside the target, renamed into place.
  const staging = `${out}.partial-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  await writeFile(join(staging, 'predictions.jsonl'), predictions.map((prediction) => `${JSON.stringify(prediction)}\n`).join(''));
  await writeFile(join(staging, 'report.json'), `${JSON.stringify({ ...report, grading }, null, 2)}\n`);
  await rm(out, { recursive: true, force: true });
  await rename(staging, out);
  await rm(kept, { force: true });
  return { report, grading, out };
}

/** The outcomes a killed search of the same budget kept for these instances; lines it did not finish writing are searched again. */
function searchedBefore(file: string, budget: number, instances: ReadonlySet<string>): Map<string, SearchOutcome> {
  const done = new Map<string, SearchOutcome>();
  if (!existsSync(file)) return done;
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    let parsed;
    try {
      parsed = z.object({ budget: z.number(), outcome: SearchOutcome }).safeParse(JSON.parse(line));
    } catch {
      continue;
    }
    if (parsed.success && parsed.data.budget === budget && instances.has(parsed.data.outcome.instance_id))
      done.set(parsed.data.outcome.instance_id, parsed.data.outcome);
  }
  return done;
}

/**
 * The repositories to build images for: one target, or every repository a dataset's manifest names.
 * A dataset's code comes from its own bundle where it has one (written under `scratch`), named by
 * the dataset's commit, so that the images build wherever the dataset was copied to.
 */
export async function sourcesOf(
  target: string,
  scratch: string,
): Promise<Array<{ profile: RepoProfile; location: string; commit?: string }>> {
  const manifest = join(target, 'manifest.json');
  if (!existsSync(manifest)) return [resolveTarget(target)];
  const repos = (JSON.parse(readFileSync(manifest, 'utf8')) as { repos?: Array<{ profile?: unknown; commit?: string }> }).repos ?? [];
  const sources = [];
  for (const repo of repos) {
    const parsed = RepoProfile.safeParse(repo.profile);
    if (!parsed.success)
      throw new UserError(`${manifest} has no usable profile for a repository`, 'export the dataset again with this version of swesynth');
    const profile = parsed.data;
    const task = existsSync(join(target, bundleFile(profile.name)))
      ? readDataset(target).instances.find((instance) => instance.repo === profile.name)
      : undefined;
    if (!task || !repo.commit) {
      sources.push({ profile, location: profile.url });
      continue;
    }
    const code = join(scratch, profile.name.replace('/', '__'));
    await baseFromBundle(target, task, code);
    sources.push({ profile: { ...profile, commit: null }, location: code, commit: repo.commit });
  }
  return sources;
}

/** The image of every task of a dataset, on its repository's environment image (which must be built). */
export async function buildTaskImages(dir: string, limits: ContainerLimits, log: (line: string) => void) {
  if (!existsSync(join(dir, 'manifest.json')))
    throw new UserError(`--tasks needs a dataset folder, and ${dir} is none`, 'name a folder that `swesynth export` wrote');
  const { instances, repos } = loadDataset(dir);
  const docker = await connectEngine();
  const images = [];
  for (const instance of instances) {
    const repo = repos.find((candidate) => candidate.name === instance.repo)!;
    const bundle = join(dir, bundleFile(instance.repo));
    if (!existsSync(bundle))
      throw new UserError(`${dir} has no ${bundleFile(instance.repo)} to make task images from`, 'export it again with the bundle format');
    const image = await buildTaskImage(docker, {
      instanceId: instance.instance_id,
      profile: repo.profile,
      commit: repo.commit,
      bundle: readFileSync(bundle),
      limits,
    });
    log(`docker build: ${image.name} built in ${(image.buildMs / 1000).toFixed(1)} s`);
    images.push({ instance_id: instance.instance_id, ...image });
  }
  return images;
}

/** The stats of runs named by folder or by repo, or of every run under `runsDir`. */
export async function collectStats(targets: readonly string[], runsDir: string): Promise<Stats> {
  const dirs =
    targets.length > 0
      ? targets.map((target) => (existsSync(join(target, 'run.db')) ? target : join(runsDir, slugOf(resolveTarget(target).profile))))
      : existsSync(runsDir)
        ? (await readdir(runsDir)).map((name) => join(runsDir, name)).filter((dir) => existsSync(join(dir, 'run.db')))
        : [];
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
