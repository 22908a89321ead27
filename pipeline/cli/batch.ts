import { existsSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../common/errors.js';
import type { Logger } from '../common/logger.js';
import { Progress } from '../common/progress.js';
import { batchRow, batchTable, BATCH_COLUMNS, datasetLine } from '../batch/report.js';
import { entryKey, readBatchList, type BatchEntry } from '../batch/list.js';
import { readBatchState, writeBatchState, type BatchDataset, type BatchStage, type RepoOutcome } from '../batch/state.js';
import { statsHtml } from '../dataset/stats-html.js';
import { combineStats } from '../dataset/stats.js';
import { requireDatasetName } from '../dataset/write.js';
import { UnworkingProfileError } from '../repo/init.js';
import { initProved } from './prove.js';
import type { RepoProfile } from '../repo/profile.js';
import { resolveTarget } from '../repo/target.js';
import { loadConfig } from './config.js';
import { addOptions, resolveOptions, RUN_OPTIONS, type ResolvedOptions } from './options.js';
import { collectStats, exportFromRuns, openRun, runStages } from './services.js';

interface BatchFlags {
  repos: string;
  force?: boolean;
  retryFailed?: boolean;
  html?: string;
}

/** Run options a batch passes on to the run of each repository; the dataset options name the batch's own dataset. */
const BATCH_OPTIONS = RUN_OPTIONS.filter((name) => !['runDir', 'killOnly', 'redis', 'queue'].includes(name));

/** The columns a profile fills: runners, package manager, workspace, build. */
function profileColumns(profile: RepoProfile): Pick<RepoOutcome, 'repo' | 'runners' | 'packageManager' | 'workspace' | 'build'> {
  const packages = profile.packages ?? [];
  return {
    repo: profile.name,
    runners: packages.length > 0 ? packages.map((pkg) => `${pkg.runner} (${pkg.path})`) : [profile.runner],
    packageManager: profile.packageManager,
    workspace: packages.length > 0,
    build: profile.build,
  };
}

interface EntrySettings {
  reposDir: string;
  force: boolean;
  /** Keeps the outcome so far: a kill from here on leaves this much behind (a profile, a run). */
  save: (outcome: RepoOutcome) => void;
  options: ResolvedOptions;
  /** The entry of this batch that already runs a repository of this name, if another does. */
  otherEntryOf: (repo: string) => string | undefined;
  log: Logger;
}

/**
 * One repository of a batch: init (unless a profile is at hand), then every stage of its run, as
 * `swesynth init` and `swesynth run` do. A failure at any point is its outcome, with the stage.
 */
async function runEntry(entry: BatchEntry, before: RepoOutcome | undefined, settings: EntrySettings): Promise<RepoOutcome> {
  const log: Logger = {
    info: (message) => settings.log.info(`${entry.given}: ${message}`),
    warn: (message) => settings.log.warn(`${entry.given}: ${message}`),
  };
  const listedProfile = entry.location.endsWith('.json');
  const outcome: RepoOutcome = {
    entry,
    repo: null,
    profile: listedProfile ? entry.location : (before?.profile ?? null),
    wroteProfile: !listedProfile && (before?.wroteProfile ?? false),
    runners: [],
    packageManager: null,
    workspace: null,
    build: null,
    run: before?.run ?? null,
    tests: null,
    candidates: null,
    tasks: null,
    dataset: null,
    failure: null,
    finished: false,
  };
  // A profile init was writing when a batch was killed is this batch's own: init writes it again.
  const force = settings.force || (before?.finished === false && before.profile === null);
  let stage: BatchStage = 'init';
  try {
    let probedRunners = before?.runners ?? [];
    // A profile init wrote earlier is taken as it is now: the user may have mended it since.
    if (!listedProfile && (!outcome.profile || !existsSync(outcome.profile))) {
      outcome.profile = null;
      settings.save(outcome);
      try {
        const result = await initProved(entry.location, {
          commit: entry.commit ?? undefined,
          overrides: {},
          reposDir: settings.reposDir,
          force,
          packages: [],
          probe: true,
          prove: true,
          log,
        });
        outcome.profile = resolve(result.path);
        probedRunners = result.probe?.runners ?? [];
        log.info(`init: wrote ${result.path}`);
        settings.save({ ...outcome, wroteProfile: true, runners: probedRunners });
      } catch (error) {
        if (error instanceof UnworkingProfileError) outcome.profile = resolve(error.path);
        throw error;
      } finally {
        outcome.wroteProfile = outcome.profile !== null;
      }
    }
    const { profile } = resolveTarget(outcome.profile!);
    const columns = profileColumns(profile);
    Object.assign(outcome, columns, { runners: probedRunners.length > 0 ? probedRunners : columns.runners });
    const other = settings.otherEntryOf(profile.name);
    if (other)
      throw new UserError(`${entry.given} is ${profile.name}, as ${other} is: a batch makes one run per repository`, 'list it once');
    stage = 'setup';
    const ctx = await openRun({ target: outcome.profile!, options: settings.options, log, keepShape: true });
    outcome.run = ctx.runDir;
    settings.save(outcome);
    try {
      for (const result of await runStages(ctx, (name) => (stage = name))) {
        if (result.stage === 'setup') outcome.tests = result.tests;
        if (result.stage === 'mutate') outcome.candidates = result.candidates;
        if (result.stage === 'export') Object.assign(outcome, { tasks: result.instances, dataset: result.path });
      }
    } finally {
      ctx.store.close();
    }
  } catch (error) {
    if (!(error instanceof UserError)) log.warn(`unexpected error: ${(error as Error).stack ?? String(error)}`);
    const message = error instanceof UserError ? error.message : `unexpected error: ${(error as Error).message}`;
    const hint = error instanceof UserError ? (error.hint ?? null) : null;
    outcome.failure = { stage, message, hint };
    if (outcome.profile && outcome.repo === null) {
      // A profile init wrote that does not work yet still says what it found.
      try {
        Object.assign(outcome, profileColumns(resolveTarget(outcome.profile).profile));
      } catch {
        // A profile that does not parse fills no column.
      }
    }
    log.warn(`failed at ${stage}: ${message}${hint ? `\n  → ${hint}` : ''}`);
  }
  return { ...outcome, finished: true };
}

/** The dataset of these profiles in this place, if an earlier invocation wrote it: a finished batch reports it again. */
function writtenBefore(dataset: BatchDataset | null, profiles: readonly string[], name: string, options: ResolvedOptions): boolean {
  if (!dataset || !existsSync(dataset.path)) return false;
  const { out, datasetVersion } = options.values;
  return (
    [...dataset.profiles].sort().join('\n') === [...profiles].sort().join('\n') &&
    dirname(dataset.path) === resolve(out, name) &&
    (datasetVersion === null || datasetVersion === dataset.version)
  );
}

export interface BatchReport {
  batch: string;
  state: string;
  repos: RepoOutcome[];
  dataset: BatchDataset | null;
}

/**
 * A batch: init and run every repository of a list, one after the other, each failure recorded and
 * the batch going on, then one dataset from every repository that gave tasks. The state file
 * keeps each outcome as it comes, so a rerun skips the repositories an earlier one finished.
 */
export async function runBatch(listFile: string, flags: BatchFlags, options: ResolvedOptions, log: Logger): Promise<BatchReport> {
  const entries = readBatchList(listFile);
  const name = options.values.dataset ?? basename(listFile).replace(/\.[^.]*$/, '');
  requireDatasetName(name);
  const statePath = join('.swesynth', 'batches', `${name}.json`);
  let state = readBatchState(statePath, resolve(listFile));
  if (state.list !== resolve(listFile) && !options.values.fresh)
    throw new UserError(
      `the batch ${name} in ${statePath} was made from the list ${state.list}`,
      'pass --dataset <name> to name this batch otherwise, or --fresh to start it over from this list',
    );
  if (options.values.fresh) {
    // Starting over: the profiles this batch's init wrote and the runs it made go with its state.
    for (const outcome of Object.values(state.repos)) {
      if (outcome.wroteProfile && outcome.profile) await rm(outcome.profile, { force: true });
      if (outcome.run) await rm(outcome.run, { recursive: true, force: true });
    }
    state = { list: resolve(listFile), repos: {}, dataset: null };
    writeBatchState(statePath, state);
  }
  const runOptions: ResolvedOptions = {
    // Each run exports a dataset of its own repository, named after it, as `swesynth run` does.
    values: { ...options.values, fresh: false, dataset: null, datasetVersion: null },
    chosen: new Set([...options.chosen].filter((option) => option !== 'dataset' && option !== 'datasetVersion')),
  };
  const todo = entries.filter((entry) => {
    const before = state.repos[entryKey(entry)];
    return !before || !before.finished || (flags.retryFailed && before.failure !== null);
  });
  const skipped = entries.filter((entry) => !todo.includes(entry)).map((entry) => state.repos[entryKey(entry)]!);
  if (skipped.length > 0) {
    const failed = skipped.filter((outcome) => outcome.failure !== null).length;
    log.info(
      `batch: ${skipped.length} of ${entries.length} repositories finished in an earlier invocation are skipped` +
        (failed > 0 ? ` (${failed} failed: --retry-failed tries them again)` : ''),
    );
  }
  const progress = new Progress('batch', todo.length, options.values.progress && !options.values.json);
  for (const entry of todo) {
    const key = entryKey(entry);
    const outcome = await runEntry(entry, state.repos[key], {
      reposDir: flags.repos,
      force: flags.force ?? false,
      save: (sofar) => {
        state.repos[key] = sofar;
        writeBatchState(statePath, state);
      },
      options: runOptions,
      otherEntryOf: (repo) =>
        Object.entries(state.repos).find(([other, each]) => other !== key && each.repo === repo && each.run !== null)?.[1].entry.given,
      log,
    });
    state.repos[key] = outcome;
    writeBatchState(statePath, state);
    progress.tick(outcome.failure ? `failed at ${outcome.failure.stage}` : 'done');
  }

  const repos = entries.map((entry) => state.repos[entryKey(entry)]!);
  const giving = repos.filter((outcome) => outcome.failure === null && (outcome.tasks ?? 0) > 0).map((outcome) => outcome.profile!);
  if (giving.length === 0) state.dataset = null;
  else if (writtenBefore(state.dataset, giving, name, options))
    log.info(`batch: the dataset of these repositories is ${state.dataset!.path}`);
  else {
    const written = await exportFromRuns(giving, { ...options, values: { ...options.values, fresh: false, dataset: name } }, log);
    state.dataset = { path: written.path, version: written.version, instances: written.instances, profiles: giving };
  }
  writeBatchState(statePath, state);
  return { batch: name, state: statePath, repos, dataset: state.dataset };
}

/** `swesynth batch <list>`: its flags are run's, passed to the run of each repository, and a few of its own. */
export function addBatchCommand(program: Command, log: Logger): void {
  const command = program
    .command('batch')
    .description(
      'build a corpus from many repositories: init and run each one of a list in turn, a table of what each gave or where it failed, and one dataset of all their tasks',
    )
    .argument(
      '<list>',
      'a file of repositories, one a line: `<path-or-url> [commit]` (# starts a comment; a repo profile .json skips init), or a JSON array of {url, commit?}',
    )
    .option('--repos <dir>', 'where init writes the profiles', 'repos')
    .option('--force', 'let init overwrite a profile that is already there')
    .option(
      '--retry-failed',
      'try the repositories that failed in an earlier invocation again (from the profile init wrote, as you left it)',
    )
    .option('--html <file>', 'also write the table and the funnel of every run as a self-contained HTML report');
  addOptions(command, BATCH_OPTIONS, {
    dataset: {
      description: 'the dataset of every repository that gave tasks; it names the batch too',
      shownDefault: "the list's file name",
    },
    datasetVersion: 'semantic version of that dataset',
    fresh: "discard the batch's earlier outcomes, the profiles its init wrote and its runs, and start over",
    json: 'print the table as JSON on stdout',
    scheduler: 'in-process: one repository at a time (bullmq is not supported for batch yet)',
  })
    .addHelpText(
      'after',
      `
A rerun of the same list skips the repositories an earlier one finished (their outcomes are kept in
.swesynth/batches/<dataset>.json); each run resumes where it stopped. The exit code is 1 when no
repository gave tasks.

Examples:
  $ cat corpus.txt
  ../my-lib
  https://example.invalid/acme/widgets.git 4b85938   # at this commit
  $ swesynth batch corpus.txt --max-candidates 100              # dataset out/corpus/<version>
  $ swesynth batch corpus.txt --json --html corpus.html
  $ swesynth batch corpus.txt --retry-failed                    # after mending a profile init wrote
`,
    )
    .action(async (list: string, flags: BatchFlags, self: Command) => {
      const config = loadConfig(self.opts().config as string | undefined);
      if ((self.opts().scheduler ?? config.scheduler) === 'bullmq')
        throw new UserError(
          '--scheduler bullmq is not supported for batch yet: a batch runs its repositories one at a time in this process',
          'pass --scheduler in-process, or run `swesynth run <repo> --scheduler bullmq` for each repository',
        );
      const options = resolveOptions(self, config);
      const report = await runBatch(list, flags, options, log);
      if (flags.html) {
        const runs = report.repos.flatMap((outcome) => (outcome.run && existsSync(join(outcome.run, 'run.db')) ? [outcome.run] : []));
        const stats = runs.length > 0 ? await collectStats(runs, options.values.runsDir) : combineStats([]);
        const table = {
          heading: 'Repositories',
          columns: BATCH_COLUMNS,
          rows: report.repos.map(batchRow),
          note: datasetLine(report.dataset),
        };
        await writeFile(flags.html, statsHtml(stats, `swesynth batch ${report.batch}`, [table]));
        log.info(`batch: wrote ${flags.html}`);
      }
      process.stdout.write(options.values.json ? `${JSON.stringify(report, null, 2)}\n` : `${batchTable(report.repos, report.dataset)}\n`);
      if (!report.dataset)
        throw new UserError(
          'no repository of the batch gave tasks',
          'the table says where each one failed; mend those and pass --retry-failed',
        );
    });
}
