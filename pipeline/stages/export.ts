import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { newFileDiff } from '../../mutators/diff.js';
import { mutatedFiles } from '../store/candidates.js';
import type { StageContext, StageResult } from './context.js';
import type { DatasetRepo, Instance, StatementProvenance } from '../dataset/instance.js';
import type { LlmSettings } from '../statements/llm-writer.js';
import { readDataset } from '../dataset/read.js';
import { writeDataset, type DatasetSource } from '../dataset/write.js';
import type { SelfCheck } from '../store/summaries.js';
import { evaluateSets, type EvaluationReport, type PredictionSet, treeBuilds } from '../dataset/grading.js';
import { slugOf, type RepoProfile } from '../repo/profile.js';
import { suiteOfFile, type Suite, suitesOf } from '../runners/suites.js';
import { statsOf } from '../dataset/stats.js';
import { taskImageName } from '../sandbox/task-image.js';
import { preparedWorkspace } from '../sandbox/workspace.js';
import { Progress } from '../common/progress.js';
import { noticingFilesOf } from '../validation/judge.js';
import { curate } from '../dataset/curation.js';
import { withSearch, type Difficulty } from '../dataset/difficulty.js';
import { solve } from '../solve/solve.js';
import { testFileOf } from '../runners/test-ids.js';
import { UserError } from '../common/errors.js';
import { publicRemoteOf } from '../repo/public-remote.js';
import { bundleFile } from '../dataset/formats/bundle.js';

/** The test files holding FAIL_TO_PASS tests: an agent would read the fix out of them, so a task hides them. */
function hiddenTestPatch(failToPass: readonly string[], read: (file: string) => string): string {
  const files = [...new Set(failToPass.map(testFileOf))].sort();
  return files.map((file) => newFileDiff(file, read(file))).join('');
}

/** The runner of the suites holding these tests: the profile's, or in a workspace those of the packages involved. */
function runnersOf(suites: Suite[], testIds: readonly string[]): string {
  const files = testIds.map(testFileOf);
  return [...new Set(files.map((file) => suiteOfFile(suites, file)?.adapter.name).filter((name) => name !== undefined))].sort().join(',');
}

/**
 * A run's kept tasks with statements, as instances, before curation, with the code each changes; a
 * task the repair search ran on has its result among its difficulty's features.
 */
function instancesOfRun(ctx: StageContext, searched: ReadonlyMap<string, Difficulty['search']>) {
  const { store, profile, options } = ctx;
  const environment = ctx.store.environment();
  const read = (file: string) => readFileSync(join(environment.workspace, file), 'utf8');
  const createdAt = new Date().toISOString();
  const suites = suitesOf(profile);
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
  const issues = store.issues();
  const statements = new Map(issues.filter((issue) => issue.status === 'written').map((issue) => [issue.candidateId, issue]));
  const candidates = store.candidates();
  const instances: Instance[] = [];
  const context: DatasetSource['context'] = new Map();
  for (const candidate of candidates) {
    const verdict = verdicts.get(candidate.id);
    const statement = statements.get(candidate.id);
    if (verdict?.status !== 'kept' || !statement) continue;
    const { provenance } = candidate;
    const origin = provenance.origin;
    const instanceId = `${slugOf(profile)}.${provenance.strategy}__${candidate.id}`;
    const instance: Instance = {
      instance_id: instanceId,
      repo: profile.name,
      base_commit: environment.baseCommit,
      environment_setup_commit: environment.baseCommit,
      patch: candidate.fixPatch,
      test_patch: options.visibleTests ? '' : hiddenTestPatch(verdict.failToPass, read),
      problem_statement: statement.body,
      hints_text: '',
      FAIL_TO_PASS: JSON.stringify(verdict.failToPass),
      PASS_TO_PASS: JSON.stringify(verdict.passToPass),
      created_at: createdAt,
      version: environment.repoVersion,
      // The task's own image, which `swesynth docker build <dataset> --tasks` makes on the environment image.
      image_name: environment.image ? taskImageName(instanceId, environment.baseCommit) : null,
      bug_patch: candidate.bugPatch,
      mutation: {
        generator: provenance.generator,
        operator: provenance.strategy,
        family: provenance.family,
        file: candidate.file,
        function: candidate.unit,
        sites: candidate.sites.map((site) => ({
          file: site.file,
          function: site.unit,
          operator: site.operator,
          lines: { start: site.startLine, end: site.endLine },
          original: site.original,
          replacement: site.replacement,
        })),
        ...(origin?.kind === 'merge' ? { combines: origin.parents } : {}),
        ...(origin?.kind === 'commit' ? { commit: { hash: origin.hash, date: origin.date, subject: origin.subject } } : {}),
      },
      title: statement.title,
      runner: runnersOf(suites, verdict.failToPass),
      statement: {
        writer: statement.writer,
        llm: statement.llm ?? null,
        ...(statement.llmFallback ? { llm_fallback: statement.llmFallback } : {}),
        ...(statement.repro ? { repro: statement.repro.status } : {}),
        ...(statement.repro?.form ? { repro_form: statement.repro.form } : {}),
      },
      ...(statement.difficulty ? { difficulty: difficultyWith(statement.difficulty, searched.get(instanceId)) } : {}),
    };
    instances.push(instance);
    context.set(
      instance.instance_id,
      [...mutatedFiles(candidate.sites, read)].map(([path, text]) => ({ path, text })),
    );
  }
  return { instances, context };
}

const difficultyWith = (difficulty: Difficulty, search: Difficulty['search']): Difficulty =>
  search ? withSearch(difficulty, search) : difficulty;

/** The repository of a run as a dataset names it. */
function datasetRepoOf(ctx: Pick<StageContext, 'store' | 'profile' | 'location'>): DatasetRepo {
  const environment = ctx.store.environment();
  const remote = publicRemoteOf(ctx.location);
  // A path of this machine means nothing where the dataset is copied to: the code is in the dataset's bundle.
  const inBundle = bundleFile(ctx.profile.name);
  return {
    name: ctx.profile.name,
    url: remote,
    ...(remote ? {} : { url_note: `no public remote: the code of every task is in ${inBundle}` }),
    commit: environment.baseCommit,
    image: environment.image,
    // The profile's url as a profile reads it: relative to the folder of the file it is in, here the dataset's.
    profile: { ...ctx.profile, url: remote ?? inBundle },
    setAside: environment.setAside.map(({ file, titlePath }) => ({ file, titlePath })),
  };
}

/** What a run contributes to a dataset: its kept tasks with statements, as instances, curated. */
export function sourceOfRun(ctx: StageContext, searched: ReadonlyMap<string, Difficulty['search']> = new Map()): DatasetSource {
  const { store, profile, options } = ctx;
  const environment = ctx.store.environment();
  const { instances, context } = instancesOfRun(ctx, searched);
  const candidates = store.candidates();
  const verdicts = store.verdicts();
  const issues = store.issues();
  const stableTests = store.baseline().filter((test) => test.verdict === 'stable').length;
  const { kept, curation } = curate(instances, stableTests, options.curation);
  const { f2pShare, tier, perFunction } = curation.dropped;
  if (kept.length < instances.length) {
    const reasons = [
      f2pShare > 0
        ? `${f2pShare} fail over ${Math.round(options.curation.maxF2pShare * 100)}% of the ${stableTests} stable tests (--max-f2p-share)`
        : '',
      tier > 0 ? `${tier} not of the tiers asked for (--difficulty)` : '',
      perFunction > 0 ? `${perFunction} over the cap per function (--max-per-function)` : '',
    ];
    ctx.log.info(`export: ${instances.length - kept.length} of ${instances.length} tasks left out: ${reasons.filter(Boolean).join('; ')}`);
  }
  // The funnel of this run, which the card and manifest summarize as yield per operator.
  const operators = statsOf(store).operators.map(({ operator, validated, kept }) => ({ operator, validated, kept }));
  return {
    repo: datasetRepoOf(ctx),
    gitDir: environment.workspace,
    testTimeoutMs: environment.timeoutMs,
    instances: kept,
    context,
    curation,
    settings: {
      ...store.getMeta('mutation'),
      baselineRuns: environment.baselineRuns,
      timeoutMs: environment.timeoutMs,
      sandbox: environment.sandbox,
      runner: profile.runner,
    },
    counts: {
      candidates: candidates.length,
      verdicts: store.verdictCounts(),
      kept: [...verdicts.values()].filter((verdict) => verdict.status === 'kept').length,
      statementsRejected: issues.filter((issue) => issue.status === 'rejected').length,
      instances: kept.length,
    },
    operators,
    statements: statementsOf(kept),
  };
}

/** Where a run's candidates stopped short of a task: verdicts, rejected statements, curation. */
function whyNoTask({ store }: StageContext, { curation }: DatasetSource): string {
  const verdicts = Object.entries(store.verdictCounts())
    .map(([status, n]) => `${status} ${n}`)
    .join(', ');
  const rejected = store.issues().filter((issue) => issue.status === 'rejected').length;
  const { f2pShare, tier, perFunction } = curation.dropped;
  const curated = f2pShare + tier + perFunction;
  return [
    `${store.candidates().length} candidates: ${verdicts || 'none validated'}`,
    rejected > 0 ? `${rejected} problem statements rejected` : '',
    curated > 0 ? `${curated} tasks left out by curation` : '',
  ]
    .filter(Boolean)
    .join('; ');
}

/** Statement counts per writer and the distinct models asked, for the manifest and the card. */
function statementsOf(instances: readonly Instance[]): StatementProvenance {
  const writers: Record<string, number> = {};
  const repros: Record<string, number> = {};
  let reproTestFiles = 0;
  const llm = new Map<string, LlmSettings>();
  for (const { statement } of instances) {
    if (!statement) continue;
    writers[statement.writer] = (writers[statement.writer] ?? 0) + 1;
    if (statement.repro) repros[statement.repro] = (repros[statement.repro] ?? 0) + 1;
    if (statement.repro_form === 'test-file') reproTestFiles++;
    if (statement.llm) llm.set(JSON.stringify(statement.llm), statement.llm);
  }
  return { writers, llm: [...llm.values()], repros, ...(reproTestFiles > 0 ? { reproTestFiles } : {}) };
}

type ExportingRun = Pick<StageContext, 'store' | 'profile' | 'location' | 'runDir' | 'options' | 'log'>;

/** Each run's clean workspace, installed on this machine: a Docker run's holds the code only, and is prepared beside it once. */
function installedWorkspaces(runs: readonly ExportingRun[]): (repo: string) => Promise<string> {
  const workspaces = new Map<string, Promise<string>>();
  return (repo) => {
    const run = runs.find((each) => each.profile.name === repo)!;
    const environment = run.store.environment();
    if (environment.sandbox === 'local') return Promise.resolve(environment.workspace);
    if (!workspaces.has(repo))
      workspaces.set(
        repo,
        preparedWorkspace(run, join(run.runDir, 'grading-workspace')).then(() => join(run.runDir, 'grading-workspace')),
      );
    return workspaces.get(repo)!;
  };
}

/**
 * The repair search's result on each of a run's tasks (see `swesynth solve`), each searched as the
 * agent gets it, with the coverage setup learned standing for the visible tests'.
 */
async function searchedTasks(ctx: StageContext, budget: number): Promise<Map<string, Difficulty['search']>> {
  const { instances } = instancesOfRun(ctx, new Map());
  const progress = new Progress('export: repair search', instances.length, ctx.options.progress);
  const workDir = join(ctx.runDir, 'search');
  try {
    const report = await solve(
      {
        name: ctx.options.dataset,
        version: '',
        instances,
        repos: [datasetRepoOf(ctx)],
      },
      {
        budget,
        coverageOf: () => ctx.store.getMeta('coverage') ?? null,
        workspaceOf: installedWorkspaces([ctx]),
        workDir,
        concurrency: ctx.options.concurrency,
        onOutcome: (outcome) => progress.tick(outcome.status),
      },
    );
    return new Map(
      report.outcomes.map((outcome) => [outcome.instance_id, { found: outcome.status === 'found', edits: outcome.edits, budget }]),
    );
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/**
 * The self-check of a dataset: every task graded as an agent gets it (bug in, hidden tests out,
 * one commit), with the fix, with an empty patch, and with the bug patch itself as predictions.
 */
export function selfCheckOf(runs: readonly ExportingRun[]) {
  return async (instances: Instance[]): Promise<SelfCheck> => {
    const byRepo = new Map(runs.map((run) => [run.profile.name, run]));
    const workspaceOf = installedWorkspaces(runs);
    const profileOf = (repo: string): RepoProfile => byRepo.get(repo)!.profile;
    const setAsideOf = (repo: string) => byRepo.get(repo)!.store.environment().setAside;
    // The fix is swesynth's own revert: checking it needs the test files that can notice the change, as validation ran them.
    const noticing = new Map(
      runs.map(({ profile, store, options }) => {
        const coverage = options.wholeSuite ? null : (store.getMeta('coverage') ?? null);
        const stable = store.baseline().filter((test) => test.verdict === 'stable');
        return [profile.name, noticingFilesOf({ profile, environment: store.environment(), coverage, stable })];
      }),
    );
    const testFilesOf = (instance: Instance) =>
      noticing.get(instance.repo)!({ sites: instance.mutation.sites.map((site) => ({ file: site.file, unit: site.function })) });
    const { options, log, runDir } = runs[0]!;
    const workDir = join(runDir, 'self-check');
    const progress = new Progress('self-check', 3 * instances.length, options.progress);
    const setOf = (label: string, patchOf: (instance: Instance) => string): PredictionSet => ({
      predictions: instances.map((instance) => ({
        instance_id: instance.instance_id,
        model_name_or_path: `self-check:${label}`,
        model_patch: patchOf(instance),
      })),
      ...(label === 'gold' ? { testFilesOf } : {}),
      onResult: (result) => progress.tick(`${label} ${result.status}`),
    });
    const summary = (report: EvaluationReport) => ({ resolved: report.resolved, total: report.total });
    /** What each task did wrong in the three gradings, if anything. */
    const failuresOf = (empty: EvaluationReport, bug: EvaluationReport, gold: EvaluationReport) => {
      const resolved = (report: EvaluationReport) =>
        new Set(report.instances.filter((result) => result.status === 'resolved').map((result) => result.instance_id));
      const [resolvedEmpty, resolvedBug] = [resolved(empty), resolved(bug)];
      return gold.instances.flatMap((fix) => {
        const reasons = [
          fix.status === 'resolved'
            ? ''
            : `the fix: ${fix.status}${fix.detail ? ` (${fix.detail.slice(0, 200)})` : ''}; failing: ${[...fix.failToPassFailed, ...fix.passToPassFailed].slice(0, 3).join(', ')}`,
          resolvedEmpty.has(fix.instance_id) ? 'an empty patch resolves it' : '',
          resolvedBug.has(fix.instance_id) ? 'the bug patch itself resolves it' : '',
        ].filter(Boolean);
        return reasons.length === 0 ? [] : [{ instance_id: fix.instance_id, reason: reasons.join('; ') }];
      });
    };
    try {
      log.info(`export: self-check of ${instances.length} tasks (the fix, an empty patch, the bug itself)`);
      // The bug before the fix: a patch that does not apply leaves the task tree ready for the next.
      const builds = treeBuilds();
      const [empty, bug, gold] = await evaluateSets(
        instances,
        [setOf('empty', () => ''), setOf('bug', (instance) => instance.bug_patch), setOf('gold', (instance) => instance.patch)],
        {
          workspaceOf,
          profileOf,
          setAsideOf,
          coverageOf: (repo) => byRepo.get(repo)!.store.getMeta('coverage') ?? null,
          // The reference way checks its tasks as it validated them: with the whole build.
          wholeBuilds: options.wholeSuite,
          workDir,
          concurrency: options.concurrency,
          onBuild: builds.count,
        },
      );
      if (builds.summary()) log.info(`export: self-check builds: ${builds.summary()}`);
      const failed = failuresOf(empty!, bug!, gold!);
      for (const { instance_id, reason } of failed) log.warn(`export: ${instance_id} failed the self-check: ${reason}`);
      return { gold: summary(gold!), empty: summary(empty!), bug: summary(bug!), failed };
    } finally {
      await rm(workDir, { recursive: true, force: true });
    }
  };
}

/** The version a killed export of this run wrote whole (renamed into place) before it could record it. */
function writtenBefore(datasetDir: string, createdAt: string): { path: string; instances: number; selfCheck: SelfCheck } | undefined {
  for (const version of existsSync(datasetDir) ? readdirSync(datasetDir) : []) {
    const path = join(datasetDir, version);
    let read;
    try {
      read = readDataset(path);
    } catch {
      continue; // not a dataset version, or another's damaged one: not what this run wrote
    }
    const { manifest, instances } = read;
    if (manifest.created_at !== createdAt || !manifest.self_check) continue;
    return { path, instances: instances.length, selfCheck: manifest.self_check };
  }
  return undefined;
}

/**
 * Export: the run's tasks as a new, immutable dataset version (see writeDataset). A run exports
 * once; `again` writes a further version. A resumed export that had written its version takes
 * it as it is rather than writing another.
 */
export async function exportDataset(ctx: StageContext, { again = false } = {}): Promise<StageResult> {
  const { store, options, log } = ctx;
  // Done when the last export went where this one asks to go; a new --out, --dataset or --dataset-version writes again.
  const last = store.stageSummary('export');
  const here =
    last &&
    dirname(last.path) === resolve(options.outDir, options.dataset) &&
    (options.datasetVersion === null || last.version === options.datasetVersion);
  const done = here ? last : undefined;
  if (done && !again) return { stage: 'export', alreadyDone: true, ...done };
  if (!store.stageSummary('issues')) throw new Error('export needs the problem statements of the issues stage');
  const pending = store.getMeta('pendingExport');
  const datasetDir = resolve(options.outDir, options.dataset);
  let written = pending?.dataset === options.dataset ? writtenBefore(datasetDir, pending.createdAt) : undefined;
  if (written) log.info(`export: ${written.path} was written before this run was stopped`);
  else {
    const createdAt = new Date().toISOString();
    store.setMeta('pendingExport', { dataset: options.dataset, createdAt });
    const searched = options.searchBudget === null ? new Map() : await searchedTasks(ctx, options.searchBudget);
    const source = sourceOfRun(ctx, searched);
    if (source.instances.length === 0) {
      throw new UserError(
        `export: no candidate became a task (${whyNoTask(ctx, source)})`,
        '`swesynth stats` shows where each candidate stopped; more candidates (--max-candidates 0 takes every mutant) or other --operators may give tasks',
      );
    }
    written = await writeDataset([source], {
      outDir: options.outDir,
      dataset: options.dataset,
      version: options.datasetVersion,
      split: options.split,
      testShare: options.testShare,
      formats: options.formats,
      limits: options.docker.limits,
      publishedImages: options.publishedImages,
      createdAt,
      selfCheck: selfCheckOf([ctx]),
    });
  }
  const { path, instances, selfCheck } = written;
  const record = { dataset: options.dataset, version: basename(path), path, instances, createdAt: new Date().toISOString() };
  store.transaction(() => {
    store.saveExport(record);
    store.setMeta('pendingExport', null);
    store.finishStage('export', { ...record, selfCheck });
  });
  const leftOut = selfCheck.failed?.length ? `; ${selfCheck.failed.length} that failed it left out` : '';
  log.info(
    `export: ${instances} tasks written to ${path} (self-check: the fix resolves ${selfCheck.gold.resolved} of ${selfCheck.gold.total}${leftOut})`,
  );
  return { stage: 'export', alreadyDone: false, ...record, selfCheck };
}
