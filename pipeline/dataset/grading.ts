import { readFileSync } from 'node:fs';
import { mkdir, readFile, realpath, rm } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { testIdsOf, type DatasetRepo, type Instance } from './instance.js';
import { testFileOf } from '../runners/test-ids.js';
import { readDataset } from './read.js';
import { UserError } from '../common/errors.js';
import type { RepoProfile } from '../repo/profile.js';
import { filesToRun, listTestFiles, runSuites, type Suite, suitesOf } from '../runners/suites.js';
import type { NamedTest } from '../runners/types.js';
import { LocalSandbox } from '../sandbox/local.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import { runConcurrently } from '../scheduling/in-process.js';
import { wilson } from './stats.js';
import { applyPatch, hiddenTestFiles, prepareTaskTree, type TreeBuild, TreeOutput } from './task-tree.js';
import type { CoverageMap } from '../store/records.js';
import { singleFileBuild } from '../validation/incremental-build.js';

/** A SWE-bench prediction: the patch a model proposes for one instance. */
export const Prediction = z.object({
  instance_id: z.string().min(1),
  model_name_or_path: z.string(),
  // SWE-bench writes null when a model produced no patch.
  model_patch: z
    .string()
    .nullable()
    .transform((patch) => patch ?? ''),
});
export type Prediction = z.infer<typeof Prediction>;

export const STATUSES = ['resolved', 'unresolved', 'patch-failed', 'empty-patch', 'error'] as const;
/** `error` is the harness's failure (no usable test report, or a timeout), never the model's verdict. */
export type Status = (typeof STATUSES)[number];

export interface InstanceResult {
  instance_id: string;
  model_name_or_path: string;
  status: Status;
  /** How model_patch went in: strictly, through the fuzzy fallback, or not; null when there was none. */
  applied: 'applied' | 'fuzzy' | 'failed' | null;
  /** The patch changes a test file (a hidden one, one the profile's globs find, or one named like a test); it is still graded. */
  touchesTests: boolean;
  /** The listed tests that did not pass; every one of them when the build failed, none when no tests ran. */
  failToPassFailed: string[];
  passToPassFailed: string[];
  detail?: string;
}

export interface EvaluationReport {
  /** Every instance given, predicted or not: skipping an instance cannot raise the rate. */
  total: number;
  resolved: number;
  rate: number;
  /** The 95% Wilson interval of the rate. */
  low: number;
  high: number;
  byStatus: Record<Status, number>;
  /** In the order of the instances. */
  instances: InstanceResult[];
}

export interface EvaluateOptions {
  /** A clean workspace of the repository at the instances' base_commit, installed. */
  workspaceOf(repo: string): Promise<string>;
  profileOf(repo: string): RepoProfile;
  /** Tests set aside at setup, which no grading run runs (none when absent). */
  setAsideOf?(repo: string): NamedTest[];
  /**
   * The test files that can notice this instance's change, besides its FAIL_TO_PASS files: a
   * PASS_TO_PASS test elsewhere never executes the changed code and is taken to pass, as in
   * validation. Undefined (or absent) runs every FAIL_TO_PASS and PASS_TO_PASS test file, as
   * SWE-bench does: arbitrary predictions can change anything.
   */
  testFilesOf?(instance: Instance): string[] | undefined;
  /** Where the task trees are made: one per concurrent grading, reset between tasks, all removed at the end. */
  workDir: string;
  /** Predictions graded at once (default: the CPU count). */
  concurrency?: number;
  /** The longest one test run may take (default five minutes). */
  timeoutMs?: number;
  /** What the tests saw at setup, for a Babel build's single-file rebuild (none: only a plain tsc build rebuilds a file alone). */
  coverageOf?(repo: string): CoverageMap | null;
  /** Every task tree runs the repository's whole build, as the reference way validates (default: the changed files alone where that gives the same output). */
  wholeBuilds?: boolean;
  onResult?(result: InstanceResult, done: number, total: number): void;
  /** How each graded prediction's tree was built, when the repository's tests run on built output. */
  onBuild?(build: TreeBuild): void;
}

const DEFAULT_TIMEOUT_MS = 5 * 60_000;
const TEST_PATH = /(^|\/)(tests?|__tests__)\/|\.(test|spec)\./;
const PREDICTIONS_HINT =
  'predictions are a JSON array, or JSON Lines, of objects with "instance_id", "model_name_or_path" and "model_patch"';

/** The paths a patch names in its `diff --git`, `---` and `+++` headers. */
/** Files that configure how tests run: a runner's config (`vitest.config.ts`, `.mocharc.json`), babel's, tsconfig, package.json. */
const CONFIGURATION =
  /(^|\/)([^/]*\.config\.[cm]?[jt]s|\.[\w-]*rc(\.\w+)?|[\w.-]*rc\.[cm]?[jt]s(on)?|tsconfig[\w.-]*\.json|package\.json)$/;

function patchedPaths(patch: string): string[] {
  const paths = new Set<string>();
  for (const [, before, after] of patch.matchAll(/^diff --git a\/(\S+) b\/(\S+)$/gm)) paths.add(before!).add(after!);
  for (const [, path] of patch.matchAll(/^(?:---|\+\+\+) (?:[ab]\/)?([^\t\n]+)/gm)) if (path !== '/dev/null') paths.add(path!.trim());
  return [...paths];
}

type Grading = Required<
  Pick<EvaluateOptions, 'workspaceOf' | 'profileOf' | 'setAsideOf' | 'timeoutMs' | 'coverageOf' | 'wholeBuilds' | 'onBuild'>
> & {
  trees: TaskTrees;
};

/** Predictions graded together with others on the same instances: one model's, or one check's. */
export interface PredictionSet {
  predictions: readonly Prediction[];
  testFilesOf?: EvaluateOptions['testFilesOf'];
  onResult?: EvaluateOptions['onResult'];
}

type TestFilesOf = (instance: Instance) => string[] | undefined;

/** A task tree as prepareTaskTree left it, with the test files it had then. */
interface PreparedTree {
  dir: string;
  testFiles: Set<string>;
}

/** The task trees of an evaluation (or a search), per repository: a grading takes one that no other grading holds. */
export class TaskTrees {
  private readonly free = new Map<string, string[]>();
  /** A sandbox per tree, kept with it: the runner's warm server there serves task after task. */
  private readonly sandboxes = new Map<string, LocalSandbox>();
  /** What each tree's built output was last built from. */
  private readonly outputs = new Map<string, TreeOutput>();
  private made = 0;

  constructor(private readonly workDir: string) {}

  sandboxOf(dir: string, open: () => LocalSandbox): LocalSandbox {
    if (!this.sandboxes.has(dir)) this.sandboxes.set(dir, open());
    return this.sandboxes.get(dir)!;
  }

  outputOf(dir: string, open: () => TreeOutput): TreeOutput {
    if (!this.outputs.has(dir)) this.outputs.set(dir, open());
    return this.outputs.get(dir)!;
  }

  async take(repo: string): Promise<string> {
    const free = this.free.get(repo)?.pop();
    if (free) return free;
    const dir = join(this.workDir, `${repo.replace(/[^\w.-]/g, '_')}-${++this.made}`);
    // A folder already there is a killed run's, perhaps half made: a new tree starts from nothing.
    await rm(dir, { recursive: true, force: true });
    return dir;
  }

  give(repo: string, dir: string): void {
    this.free.set(repo, [...(this.free.get(repo) ?? []), dir]);
  }

  async remove(): Promise<void> {
    for (const sandbox of this.sandboxes.values()) await sandbox.dispose();
    for (const dirs of this.free.values()) for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  }
}

function verdict(prediction: Prediction, status: Status, fields: Partial<InstanceResult> = {}): InstanceResult {
  return {
    instance_id: prediction.instance_id,
    model_name_or_path: prediction.model_name_or_path,
    status,
    applied: null,
    touchesTests: false,
    failToPassFailed: [],
    passToPassFailed: [],
    ...fields,
  };
}

/**
 * Grades an instance's predictions, one after another, each in the task tree as the agent would
 * have left it. A tree is prepared once for predictions that leave it as it was (a patch that does
 * not apply changes nothing), and again after one that applied.
 */
async function gradeInstance(
  instance: Instance,
  graded: ReadonlyArray<{ prediction: Prediction; testFilesOf: TestFilesOf }>,
  ctx: Grading,
): Promise<InstanceResult[]> {
  const profile = ctx.profileOf(instance.repo);
  const suites = suitesOf(profile);
  let dir: string | null = null;
  let tree: PreparedTree | null = null;
  try {
    const results: InstanceResult[] = [];
    for (const { prediction, testFilesOf } of graded) {
      if (prediction.model_patch.trim() === '') {
        results.push(verdict(prediction, 'empty-patch'));
        continue;
      }
      dir ??= await ctx.trees.take(instance.repo);
      if (!tree) {
        await prepareTaskTree(await ctx.workspaceOf(instance.repo), dir, instance, profile);
        // The test files before the patch: those it deletes too.
        tree = { dir, testFiles: new Set([...hiddenTestFiles(instance.test_patch), ...(await globTests(dir, suites))]) };
      }
      const result = await grade(instance, prediction, tree, testFilesOf, ctx);
      if (result.applied !== 'failed') tree = null;
      results.push(result);
    }
    return results;
  } finally {
    if (dir) ctx.trees.give(instance.repo, dir);
  }
}

async function globTests(dir: string, suites: readonly Suite[]): Promise<string[]> {
  return (await Promise.all(suites.map((suite) => listTestFiles(dir, suite)))).flat();
}

/** Grades one prediction in a freshly prepared task tree. */
async function grade(
  instance: Instance,
  prediction: Prediction,
  tree: PreparedTree,
  testFilesOf: TestFilesOf,
  ctx: Grading,
): Promise<InstanceResult> {
  const { dir } = tree;
  const profile = ctx.profileOf(instance.repo);
  const hidden = hiddenTestFiles(instance.test_patch);
  const suites = suitesOf(profile);
  // Test files before and after the patch: those it deletes and those it adds.
  const testFiles = new Set(tree.testFiles);
  const applied = await applyPatch(dir, prediction.model_patch);
  if (applied !== 'failed') for (const file of await globTests(dir, suites)) testFiles.add(file);
  const graded = {
    applied,
    touchesTests: patchedPaths(prediction.model_patch).some((path) => testFiles.has(path) || TEST_PATH.test(path)),
  };
  if (applied === 'failed') return verdict(prediction, 'patch-failed', graded);

  // The official tests replace whatever the prediction wrote in their place.
  for (const file of hidden) await rm(join(dir, file), { force: true });
  if (instance.test_patch.trim() !== '' && (await applyPatch(dir, instance.test_patch)) === 'failed') {
    return verdict(prediction, 'error', { ...graded, detail: 'the test_patch does not apply' });
  }
  const failToPass = testIdsOf(instance.FAIL_TO_PASS);
  const passToPass = testIdsOf(instance.PASS_TO_PASS);
  const runtime = await nodeRuntime(profile.node);
  const sandbox = ctx.trees.sandboxOf(dir, () => LocalSandbox.at(dir, profile.env, runtime));
  const build = profile.buildBeforeTests ? profile.build : null;
  if (build) {
    const output = ctx.trees.outputOf(dir, () => {
      const alone = ctx.wholeBuilds ? null : singleFileBuild(dir, build, ctx.coverageOf(instance.repo));
      return new TreeOutput(sandbox, alone, async () => {
        const built = await sandbox.exec(build, { timeoutMs: profile.timeouts.installMs });
        return built.timedOut || built.exitCode !== 0 ? built.outputTail.slice(-500) : undefined;
      });
    });
    const workspace = await ctx.workspaceOf(instance.repo);
    const paths = [instance.bug_patch, instance.test_patch, prediction.model_patch].flatMap(patchedPaths);
    const { build: how, failure } = await output.update(paths, (file) => readFile(join(workspace, file), 'utf8').catch(() => null));
    ctx.onBuild(how);
    if (failure !== undefined) {
      return verdict(prediction, 'unresolved', {
        ...graded,
        failToPassFailed: failToPass,
        passToPassFailed: passToPass,
        detail: `build failed: ${failure}`,
      });
    }
  }
  const noticing = testFilesOf(instance);
  const listed = noticing === undefined ? [...failToPass, ...passToPass] : failToPass;
  const wanted = [...new Set([...listed.map(testFileOf), ...(noticing ?? [])])].sort();
  // Files that share a process run with their whole suite, as the lists were made: a setup file among them may
  // hold no test. Only such a suite needs the tree's test files listed again, now the tests are back.
  const shares = suites.some((suite) => !suite.adapter.isolatesFiles);
  const present = shares ? [...new Set([...hidden, ...(await globTests(dir, suites))])].sort() : [];
  const files = filesToRun(suites, present, wanted) ?? present;
  const skip = ctx.setAsideOf(instance.repo);
  // As validation runs them: through the runner's warm server, which reads changed files afresh but keeps
  // the configuration it started with (a patch that changes one runs cold), and node:test files without
  // the runner's process, run again under it where that cannot be reported faithfully.
  const warm = !patchedPaths(prediction.model_patch).some((path) => CONFIGURATION.test(path));
  const request = { testFiles: files, only: files, skip, timeoutMs: ctx.timeoutMs, warm, direct: true };
  const run = await runSuites(sandbox, suites, request);
  if (run.kind === 'timeout')
    return verdict(prediction, 'error', { ...graded, detail: `the tests did not finish within ${ctx.timeoutMs} ms` });
  if (run.kind === 'broken')
    return verdict(prediction, 'error', {
      ...graded,
      detail: `${run.reason} (exit code ${run.exitCode}): ${run.outputTail.slice(-500)}`,
    });
  const passing = new Set(run.results.filter((test) => test.status === 'pass').map((test) => test.id));
  const ran = new Set(files);
  const failToPassFailed = failToPass.filter((id) => !passing.has(id));
  const passToPassFailed = passToPass.filter((id) => ran.has(testFileOf(id)) && !passing.has(id));
  const status = failToPassFailed.length + passToPassFailed.length === 0 ? 'resolved' : 'unresolved';
  return verdict(prediction, status, { ...graded, failToPassFailed, passToPassFailed });
}

/**
 * Grades predictions as SWE-bench does: each model_patch goes into the instance's task tree, the
 * hidden tests come back, and the instance is resolved when every FAIL_TO_PASS and PASS_TO_PASS
 * test passes. An instance without a prediction counts as an empty patch, in the rate too.
 */
export async function evaluate(
  instances: readonly Instance[],
  predictions: readonly Prediction[],
  options: EvaluateOptions,
): Promise<EvaluationReport> {
  const { testFilesOf, onResult } = options;
  return (await evaluateSets(instances, [{ predictions, testFilesOf, onResult }], options))[0]!;
}

/**
 * Grades several sets of predictions on the same instances, a report per set, as `evaluate` grades
 * each: an instance's predictions go one after another through the same task tree.
 */
export async function evaluateSets(
  instances: readonly Instance[],
  sets: readonly PredictionSet[],
  options: Omit<EvaluateOptions, 'testFilesOf' | 'onResult'>,
): Promise<EvaluationReport[]> {
  const known = new Set(instances.map((instance) => instance.instance_id));
  const graded = sets.map(({ predictions, testFilesOf = () => undefined, onResult }) => {
    const predicted = new Map<string, Prediction>();
    for (const prediction of predictions) {
      if (!known.has(prediction.instance_id))
        throw new UserError(
          `a prediction names ${prediction.instance_id}, which is not an instance of this dataset`,
          'check the instance ids, or the dataset the predictions are for',
        );
      if (predicted.has(prediction.instance_id))
        throw new UserError(`${prediction.instance_id} has more than one prediction`, 'keep one prediction per instance');
      predicted.set(prediction.instance_id, prediction);
    }
    // One file holds one model's predictions: an instance it skipped goes under that model's name.
    const models = new Set(predictions.map((prediction) => prediction.model_name_or_path));
    const model = models.size === 1 ? [...models][0]! : '';
    const predictionOf = (instance: Instance): Prediction =>
      predicted.get(instance.instance_id) ?? { instance_id: instance.instance_id, model_name_or_path: model, model_patch: '' };
    return { predicted, predictionOf, testFilesOf, onResult, results: new Map<string, InstanceResult>() };
  });

  const workspaces = new Map<string, Promise<string>>();
  // Runners report test files by their real path: a task tree reached through a symlink would name them differently.
  await mkdir(options.workDir, { recursive: true });
  const ctx: Grading = {
    workspaceOf: (repo) => {
      if (!workspaces.has(repo)) workspaces.set(repo, options.workspaceOf(repo));
      return workspaces.get(repo)!;
    },
    profileOf: options.profileOf,
    setAsideOf: options.setAsideOf ?? (() => []),
    trees: new TaskTrees(await realpath(options.workDir)),
    timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    coverageOf: options.coverageOf ?? (() => null),
    wholeBuilds: options.wholeBuilds ?? false,
    onBuild: options.onBuild ?? (() => {}),
  };
  try {
    await runConcurrently(
      instances,
      options.concurrency ?? availableParallelism(),
      (instance) =>
        gradeInstance(
          instance,
          graded.map(({ predictionOf, testFilesOf }) => ({ prediction: predictionOf(instance), testFilesOf })),
          ctx,
        ),
      (instance, results) => {
        for (const [index, set] of graded.entries()) {
          const result = set.predicted.has(instance.instance_id) ? results[index]! : { ...results[index]!, detail: 'no prediction' };
          set.results.set(instance.instance_id, result);
          set.onResult?.(result, set.results.size, instances.length);
        }
      },
    );
  } finally {
    await ctx.trees.remove();
  }
  return graded.map(({ results }) => reportOf(instances.map((instance) => results.get(instance.instance_id)!)));
}

/** A tally of how graded task trees were built, and its line for the log (null when the tests need no build). */
export function treeBuilds(): { count(build: TreeBuild): void; summary(): string | null } {
  const counts: Record<TreeBuild, number> = { none: 0, alone: 0, whole: 0 };
  return {
    count: (build) => counts[build]++,
    summary: () =>
      counts.alone + counts.whole + counts.none === 0
        ? null
        : `${counts.alone} compiled only the changed files, ${counts.whole} ran the build, ${counts.none} needed none`,
  };
}

function reportOf(graded: InstanceResult[]): EvaluationReport {
  const byStatus = Object.fromEntries(STATUSES.map((status) => [status, 0])) as Record<Status, number>;
  for (const result of graded) byStatus[result.status]++;
  const [low, high] = wilson(byStatus.resolved, graded.length);
  return {
    total: graded.length,
    resolved: byStatus.resolved,
    rate: graded.length === 0 ? 0 : byStatus.resolved / graded.length,
    low,
    high,
    byStatus,
    instances: graded,
  };
}

function issuesOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || 'the record'}: ${issue.message}`).join('; ');
}

/** A file of SWE-bench predictions, as a JSON array or as JSON Lines, each record checked. */
export function readPredictions(path: string): Prediction[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UserError(`cannot read predictions ${path}: ${(error as Error).message}`, PREDICTIONS_HINT);
  }
  const records: Array<{ where: string; value: unknown }> = [];
  if (text.trimStart().startsWith('[')) {
    let values: unknown[];
    try {
      values = JSON.parse(text) as unknown[];
    } catch (error) {
      throw new UserError(`${path} is not valid JSON: ${(error as Error).message}`, PREDICTIONS_HINT);
    }
    values.forEach((value, index) => records.push({ where: `item ${index + 1}`, value }));
  } else {
    text.split('\n').forEach((line, index) => {
      if (line.trim() === '') return;
      try {
        records.push({ where: `line ${index + 1}`, value: JSON.parse(line) });
      } catch (error) {
        throw new UserError(`${path} line ${index + 1} is not valid JSON: ${(error as Error).message}`, PREDICTIONS_HINT);
      }
    });
  }
  if (records.length === 0) throw new UserError(`${path} holds no predictions`, PREDICTIONS_HINT);
  return records.map(({ where, value }) => {
    const parsed = Prediction.safeParse(value);
    if (!parsed.success) throw new UserError(`${path} ${where} is not a prediction: ${issuesOf(parsed.error)}`, PREDICTIONS_HINT);
    return parsed.data;
  });
}

/** A dataset folder's instances and the profile of each repository they come from, checked. */
export function loadDataset(dir: string): {
  /** The dataset's folder. */
  dir: string;
  name: string;
  version: string;
  instances: Instance[];
  repos: DatasetRepo[];
  profileOf(repo: string): RepoProfile;
} {
  const { manifest, instances } = readDataset(dir);
  const profiles = new Map(manifest.repos.map((repo) => [repo.name, repo.profile]));
  for (const instance of instances) {
    if (!profiles.has(instance.repo))
      throw new UserError(
        `${instance.instance_id} comes from ${instance.repo}, which the manifest of ${dir} does not list`,
        'the dataset is damaged: export it again',
      );
    for (const field of ['FAIL_TO_PASS', 'PASS_TO_PASS'] as const) {
      try {
        testIdsOf(instance[field]);
      } catch {
        throw new UserError(
          `the ${field} of ${instance.instance_id} is not a JSON list of test ids`,
          'the dataset is damaged: export it again',
        );
      }
    }
  }
  return {
    dir,
    name: manifest.dataset,
    version: manifest.version,
    instances,
    repos: manifest.repos,
    profileOf: (repo) => {
      const profile = profiles.get(repo);
      if (!profile) throw new UserError(`the dataset has no repository ${repo}`);
      return profile;
    },
  };
}
