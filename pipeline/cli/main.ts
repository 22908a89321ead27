#!/usr/bin/env node
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import type { Logger } from '../common/logger.js';
import type { StageContext, StageResult } from '../stages/context.js';
import { loadConfig } from './config.js';
import { addOptions, dockerOf, resolveOptions, RUN_OPTIONS, WORKER_OPTIONS, type ResolvedOptions } from './options.js';
import { describeIssues, UserError } from '../common/errors.js';
import { RepoProfile } from '../repo/profile.js';
import { exportDataset } from '../stages/export.js';
import { doctor } from '../repo/doctor.js';
import { initProved, proofLine } from './prove.js';
import type { ProbeReport } from '../repo/probe.js';
import { openRun, runStages } from './services.js';
import { addBatchCommand } from './batch.js';
import { requireEarlierStages, STAGES, timed } from '../stages/index.js';
import type { StageName } from '../store/run-store.js';
import { connectEngine, pruneContainers } from '../sandbox/docker.js';
import { runWorker } from '../scheduling/bullmq.js';
import { buildImageFromProfile } from '../sandbox/workspace.js';
import { buildTaskImages, collectStats, evaluateDataset, exportFromRuns, solveDataset, sourcesOf } from './services.js';
import { solveTable } from '../solve/report.js';
import { diffDatasets, verifyDataset } from '../dataset/read.js';
import { statsHtml } from '../dataset/stats-html.js';
import { funnelTable, historyLine, repoTable, statsOf } from '../dataset/stats.js';
import { GENERATOR } from '../common/version.js';

/** The profile fields `init` is told to set, each checked against the profile's schema before anything is detected or cloned. */
function profileOverrides(flags: InitFlags): Record<string, unknown> {
  const fields = RepoProfile.shape;
  const overrides: Record<string, unknown> = {};
  const given: Array<[string, string, () => unknown]> = [
    ...(['runner', 'install', 'build'] as const).flatMap((field) =>
      flags[field] === undefined ? [] : [[`--${field} ${flags[field]}`, field, () => flags[field]] as [string, string, () => unknown]],
    ),
    ...(flags.set ?? []).map((assignment): [string, string, () => unknown] => {
      const [field, ...rest] = assignment.split('=');
      return [
        `--set ${assignment}`,
        field!,
        () => {
          try {
            return JSON.parse(rest.join('='));
          } catch {
            throw new UserError(
              `--set ${assignment}: the value is not JSON`,
              'quote strings and arrays, e.g. --set \'tests=["test/**/*.js"]\'',
            );
          }
        },
      ];
    }),
  ];
  for (const [flag, field, valueOf] of given) {
    if (!(field in fields))
      throw new UserError(`${flag}: a repo profile has no field "${field}"; the fields are ${Object.keys(fields).join(', ')}`);
    const parsed = fields[field as keyof typeof fields].safeParse(valueOf());
    if (!parsed.success) throw new UserError(`${flag}: ${describeIssues(parsed.error, [])}`);
    overrides[field] = parsed.data;
  }
  return overrides;
}

interface InitFlags {
  commit?: string;
  name?: string;
  runner?: string;
  install?: string;
  build?: string;
  set?: string[];
  repos: string;
  force?: boolean;
  json?: boolean;
  package?: string[];
  probe: boolean;
  prove: boolean;
}

function probeLine(report: ProbeReport): string {
  const ran = report.ran === 'the whole suite' ? report.ran : report.ran.join(', ');
  return `${ran}: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s`;
}

const log: Logger = {
  info: (message) => process.stderr.write(`${message}\n`),
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
};

/** The options of a command: flags first, then the environment, then the config file, then the defaults. */
function optionsOf(command: Command): ResolvedOptions {
  return resolveOptions(command, loadConfig(command.opts().config as string | undefined));
}

async function execute(target: string, command: Command, work: (ctx: StageContext) => Promise<StageResult[]>): Promise<void> {
  const options = optionsOf(command);
  const ctx = await openRun({ target, options, log, keepShape: true });
  try {
    const results = await work(ctx);
    const took = results.filter((result) => result.durationMs !== undefined && !result.alreadyDone);
    if (took.length > 0)
      log.info(`time: ${took.map((result) => `${result.stage} ${(result.durationMs! / 1000).toFixed(1)} s`).join(', ')}`);
    if (options.values.json) {
      process.stdout.write(
        `${JSON.stringify({ run: ctx.runDir, store: ctx.store.path, stages: results, yield: statsOf(ctx.store).operators }, null, 2)}\n`,
      );
    } else {
      const exported = results.find((result) => result.stage === 'export');
      if (exported) process.stdout.write(`${exported.path}\n`);
      else if (ctx.options.killOnly) {
        const { operators, total } = statsOf(ctx.store);
        process.stdout.write(`${funnelTable(operators, total)}\n`);
      }
    }
  } finally {
    ctx.store.close();
  }
}

function withRunOptions(command: Command): Command {
  return addOptions(command.argument('<repo>', 'a repo profile (.json), a repository path, or a git URL'), RUN_OPTIONS);
}

function stageCommand(program: Command, name: StageName, description: string, examples: string[]): void {
  const stageIndex = STAGES.findIndex((stage) => stage.name === name);
  withRunOptions(program.command(name).description(description))
    .addHelpText('after', `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}\n`)
    .action(async (target: string, _flags: unknown, command: Command) =>
      execute(target, command, async (ctx) => {
        requireEarlierStages(ctx, name, target);
        const stage = STAGES[stageIndex]!;
        return [name === 'export' ? await timed('export', (again) => exportDataset(again, { again: true }))(ctx) : await stage.run(ctx)];
      }),
    );
}

export function buildProgram(): Command {
  const program = new Command('swesynth')
    .description('Turn a JavaScript or TypeScript repository into SWE-bench-style bug-fixing tasks.')
    .version(GENERATOR.version)
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Stages run in order: setup → mutate → validate → combine → issues → export. Each keeps its results in the
run's store, so a rerun skips finished work and a killed run resumes.

Examples:
  $ swesynth run repos/swesynth__example.json            # the bundled example
  $ swesynth run ../my-lib --max-candidates 500 --concurrency 4   # your own repository
  $ swesynth validate ../my-lib --json                   # one stage, machine-readable summary
`,
    );

  program
    .command('init')
    .description('detect how to install and test a repository and write a repo profile for you to review')
    .argument('<repo>', 'a repository path or git URL')
    .option('--commit <sha>', 'the commit to generate tasks from (default: HEAD, or the working tree of a local path)')
    .option('--name <owner/name>', 'the repository name used in task ids (default: from the URL or package.json)')
    .option('--runner <name>', 'the test runner, when detection picks the wrong one')
    .option('--install <command>', 'the install command')
    .option('--build <command>', 'the build command')
    .option('--set <field=json...>', 'set any profile field, e.g. --set \'runnerArgs=["--env","node"]\'')
    .option('--repos <dir>', 'where profiles go', 'repos')
    .option('--force', 'overwrite an existing profile')
    .option('--json', 'print the profile on stdout')
    .option('--package <name...>', 'in a workspace, the packages to cover: names, folders or globs (default: every package with tests)')
    .option(
      '--no-probe',
      'skip the check that installs, builds and runs one test file (faster, but a profile that cannot work shows only in run)',
    )
    .option(
      '--no-prove',
      'skip the proof that takes a few sanity mutants through setup and validation (a profile whose tests notice no bug shows only in run)',
    )
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth init ../my-lib\n  $ swesynth init https://example.invalid/acme/lib.git --commit 4b85938 --name acme/lib\n' +
        '  $ swesynth init ../my-lib --runner mocha --set \'tests=["spec/**/*.js"]\'\n  $ swesynth init ../my-lib --no-probe --json\n',
    )
    .action(async (target: string, flags: InitFlags) => {
      const overrides = profileOverrides(flags);
      const result = await initProved(target, {
        commit: flags.commit,
        name: flags.name,
        overrides,
        reposDir: flags.repos,
        force: flags.force ?? false,
        packages: flags.package ?? [],
        probe: flags.probe,
        prove: flags.prove,
        log,
      });
      process.stdout.write(flags.json ? `${JSON.stringify(result.profile, null, 2)}\n` : `${result.path}\n`);
      for (const reason of result.reasons) log.info(`init: ${reason}`);
      if (result.probe) log.info(`init: probe: ${probeLine(result.probe)}`);
      if (result.proof) log.info(`init: proof: ${proofLine(result.proof)}`);
      const runners = result.profile.packages?.length
        ? result.profile.packages.map((pkg) => `${pkg.runner} (${pkg.path})`).join(', ')
        : result.profile.runner;
      log.info(
        `init: wrote ${result.path}: ${runners} via ${result.profile.packageManager}; review it, then run \`swesynth run ${result.path}\``,
      );
    });

  program
    .command('doctor')
    .description(
      'explain what swesynth detected in a repository and why, the command it runs, and what the whole suite does on this machine',
    )
    .argument('<repo>', 'a repo profile (.json) or a repository path')
    .option('--json', 'print the findings as JSON')
    .addHelpText('after', '\nExamples:\n  $ swesynth doctor ../my-lib\n  $ swesynth doctor repos/acme__lib.json --json\n')
    .action(async (target: string, flags: { json?: boolean }) => {
      const report = await doctor(target, log);
      if (flags.json) {
        process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        return;
      }
      const lines = [
        `profile: ${report.profile.name} (${report.profileSource})`,
        ...report.reasons.map((reason) => `  ${reason}`),
        `command: ${report.probe.command}`,
        `runner: ${report.probe.runners.join(', ')}; ${report.probe.testFiles.length} test files listed`,
        `suite: ${probeLine(report.probe)}`,
        ...report.probe.failures.map((failure) => `  failing: ${failure.id}: ${failure.message}`),
      ];
      process.stdout.write(`${lines.join('\n')}\n`);
    });

  withRunOptions(program.command('run').description('run every stage in order: setup, mutate, validate, combine, issues, export'))
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth run repos/swesynth__example.json\n  $ swesynth run ../my-lib --max-candidates 100 --seed 7 --json\n  $ swesynth run ../my-lib --fresh\n  $ swesynth run ../my-lib --kill-only --max-candidates 1000   # kill rates per operator, fast\n',
    )
    .action(async (target: string, _flags: unknown, command: Command) => execute(target, command, (ctx) => runStages(ctx)));
  stageCommand(program, 'setup', 'copy or clone the repository, install it and run the baseline to find stable, flaky and failing tests', [
    'swesynth setup ../my-lib',
    'swesynth setup repos/acme__widgets.json --baseline-runs 5',
  ]);
  stageCommand(program, 'mutate', 'generate candidate bugs with the mutation operators', [
    'swesynth mutate ../my-lib --max-candidates 300 --max-per-unit 3 --seed 7',
    'swesynth mutate ../my-lib --multi-site 0.3',
    'swesynth mutate ../my-lib --operators comparison-boundary,logical-flip',
  ]);
  stageCommand(program, 'validate', 'run the tests against every candidate and keep the ones a stable test notices', [
    'swesynth validate ../my-lib --concurrency 4',
  ]);
  stageCommand(program, 'combine', 'merge kept bugs of one file or module into harder tasks and validate them as a whole', [
    'swesynth combine ../my-lib --combine 20',
  ]);
  stageCommand(program, 'issues', 'write a problem statement for every kept candidate from its failing assertion', [
    'swesynth issues ../my-lib',
  ]);
  stageCommand(program, 'export', 'write the kept tasks as a new dataset version under the output folder', [
    'swesynth export ../my-lib',
    'swesynth export ../my-lib --dataset my-lib-tasks --dataset-version 2026.11 --out datasets',
  ]);
  const dataset = program.command('dataset').description('datasets: build one from several runs, verify one, compare two versions');
  withRunOptions(dataset.command('export').description('write one dataset version from the finished runs of several repositories'))
    .argument('[more...]', 'further repos')
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth dataset export repos/a.json repos/b.json repos/c.json --dataset js-bugs --dataset-version 1.0.0\n  $ swesynth dataset export repos/a.json repos/b.json --dataset js-bugs --split repo\n',
    )
    .action(async (first: string, more: string[], _flags: unknown, command: Command) => {
      const options = optionsOf(command);
      const written = await exportFromRuns([first, ...more], options, log);
      process.stdout.write(options.values.json ? `${JSON.stringify(written, null, 2)}\n` : `${written.path}\n`);
    });
  dataset
    .command('verify')
    .description('check a dataset folder: every file against its sha256 in the manifest, the schema, the splits, the task folders')
    .argument('<dir>', 'a dataset version folder, e.g. out/acme__widgets/1.0.0')
    .option('--json', 'print the result as JSON')
    .action((dir: string, flags: { json?: boolean }) => {
      const result = verifyDataset(dir);
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(result, null, 2)}\n`
          : result.problems.length === 0
            ? `${dir}: ${result.instances} instances, every file matches the manifest\n`
            : `${result.problems.map((problem) => `${dir}: ${problem}`).join('\n')}\n`,
      );
      if (result.problems.length > 0)
        throw new UserError(
          `${dir} failed verification (${result.problems.length} problem${result.problems.length === 1 ? '' : 's'})`,
          'export the dataset again',
        );
    });
  dataset
    .command('diff')
    .description('the instances added, removed and changed between two dataset versions')
    .argument('<a>', 'the older version folder')
    .argument('<b>', 'the newer version folder')
    .option('--json', 'print the result as JSON')
    .action((a: string, b: string, flags: { json?: boolean }) => {
      const difference = diffDatasets(a, b);
      if (flags.json) process.stdout.write(`${JSON.stringify(difference, null, 2)}\n`);
      else {
        const lines = [
          ...difference.added.map((id) => `+ ${id}`),
          ...difference.removed.map((id) => `- ${id}`),
          ...difference.changed.map((change) => `~ ${change.instance_id} (${change.fields.join(', ')})`),
          `${difference.added.length} added, ${difference.removed.length} removed, ${difference.changed.length} changed`,
        ];
        process.stdout.write(`${lines.join('\n')}\n`);
      }
    });

  const worker = program
    .command('worker')
    .description('take validation jobs from a BullMQ queue on Redis until stopped (Ctrl-C finishes the jobs in hand)');
  addOptions(worker, WORKER_OPTIONS, {
    redis: 'the Redis server the coordinator (swesynth run --scheduler bullmq) uses',
    queue: 'the BullMQ queue to take jobs from',
    concurrency: 'jobs at once',
    baseImage: 'base image for environment images of runs in Docker',
  })
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth worker --redis redis://10.0.0.5:6379                 # on each machine\n  $ swesynth run repos/acme__widgets.json --scheduler bullmq --redis redis://10.0.0.5:6379   # on one\n',
    )
    .action(async (_flags: unknown, command: Command) => {
      const { values } = resolveOptions(command, {});
      if (!values.redis) throw new UserError('a worker needs the Redis server of the coordinator', 'pass --redis redis://host:6379');
      await runWorker({
        redis: values.redis,
        queue: values.queue,
        concurrency: values.concurrency,
        workDir: values.workDir,
        lockDurationMs: values.lockDuration,
        docker: dockerOf(values),
        log,
      });
    });

  const grade = program.command('eval');
  addOptions(grade, ['concurrency', 'progress'], { concurrency: 'predictions graded at once' })
    .description(
      'grade SWE-bench predictions on a dataset: apply each patch to its task, restore the hidden tests, run FAIL_TO_PASS and PASS_TO_PASS',
    )
    .requiredOption('--dataset <dir>', 'a dataset version folder')
    .option('--predictions <file>', 'predictions: a JSON array or JSON Lines of {instance_id, model_name_or_path, model_patch}')
    .option('--instance <id>', 'grade one task with --patch-file instead (exit code 0 only when it is resolved)')
    .option('--patch-file <file>', 'the patch for --instance')
    .option('--work-dir <dir>', 'where installed workspaces are kept between evaluations', '.swesynth/eval')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth eval --dataset out/acme__widgets/1.0.0 --predictions preds.jsonl\n  $ swesynth eval --dataset out/acme__widgets/1.0.0 --instance acme__widgets.equality-flip__0a1b2c3d4e5f --patch-file fix.patch\n',
    )
    .action(
      async (
        flags: { dataset: string; predictions?: string; instance?: string; patchFile?: string; workDir: string; json?: boolean },
        command: Command,
      ) => {
        const { values } = resolveOptions(command, {});
        const report = await evaluateDataset({ ...flags, concurrency: values.concurrency, progress: values.progress && !flags.json }, log);
        if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
        else {
          const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
          const lines = report.instances.map(
            (result) => `${result.status.padEnd(12)} ${result.instance_id}${result.touchesTests ? '  (touches test files)' : ''}`,
          );
          lines.push(
            `resolved ${report.resolved} of ${report.total}: ${percent(report.rate)} (95% CI ${percent(report.low)} – ${percent(report.high)}); ${Object.entries(
              report.byStatus,
            )
              .map(([status, n]) => `${status} ${n}`)
              .join(', ')}`,
          );
          process.stdout.write(`${lines.join('\n')}\n`);
        }
        if (flags.instance && report.resolved !== 1) process.exitCode = 1;
      },
    );

  const search = program.command('solve');
  addOptions(search, ['concurrency', 'budget', 'progress'], { concurrency: 'tasks searched at once' })
    .description(
      "the search-based repair baseline: for each task, as an agent gets it, rank the functions its statement's repro (or a visible failing test) executes by fault localization and try swesynth's own operator edits there until the repro passes with the visible tests still passing; writes SWE-bench predictions",
    )
    .requiredOption('--dataset <dir>', 'a dataset version folder')
    .option('--out <dir>', 'where predictions.jsonl and report.json go (default: .swesynth/solve/<dataset>/<version>)')
    .option('--grade', 'grade the predictions as `swesynth eval` does, and list the fixes a hidden test still fails')
    .option('--work-dir <dir>', 'where installed workspaces are kept between searches and evaluations', '.swesynth/eval')
    .option('--json', 'print the report as JSON')
    .addHelpText(
      'after',
      '\nThe search knows the operators that made operator bugs: its share is an upper bound on how mechanical those tasks are.\n\nExamples:\n  $ swesynth solve --dataset out/acme__widgets/1.0.0\n  $ swesynth solve --dataset out/acme__widgets/1.0.0 --budget 50 --grade\n  $ swesynth eval --dataset out/acme__widgets/1.0.0 --predictions .swesynth/solve/acme__widgets/1.0.0/predictions.jsonl\n',
    )
    .action(async (flags: { dataset: string; out?: string; grade?: boolean; workDir: string; json?: boolean }, command: Command) => {
      const { values } = resolveOptions(command, {});
      const { report, grading, out } = await solveDataset(
        { ...flags, budget: values.budget, concurrency: values.concurrency, progress: values.progress && !flags.json },
        log,
      );
      if (flags.json) {
        process.stdout.write(`${JSON.stringify({ ...report, grading, out }, null, 2)}\n`);
        return;
      }
      process.stdout.write(`${solveTable(report, grading)}\npredictions and report in ${out}\n`);
    });

  const docker = program.command('docker').description("the Docker sandbox's images and containers");
  addOptions(docker.command('build'), ['baseImage', 'dockerMemory', 'dockerCpus'])
    .description(
      "build the environment image of a repository from its profile alone, or of every repository of a dataset (with --tasks, each task's image too)",
    )
    .argument('<repo>', 'a repo profile (.json), a repository path, or a dataset folder (its manifest names the profiles)')
    .option('--tasks', "also build one image per task of the dataset, named as its instance's image_name: the bug in, the hidden tests out")
    .option('--json', 'print the images as JSON')
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth docker build repos/acme__widgets.json --base-image node:20-bookworm\n  $ swesynth docker build out/acme__widgets/1.0.0 --tasks\n',
    )
    .action(async (target: string, flags: { json?: boolean; tasks?: boolean }, command: Command) => {
      const { values } = resolveOptions(command, {});
      const images = [];
      const scratch = await mkdtemp(join(tmpdir(), 'swesynth-sources-'));
      try {
        for (const source of await sourcesOf(target, scratch)) images.push(await buildImageFromProfile(source, values.baseImage, log.info));
      } finally {
        await rm(scratch, { recursive: true, force: true });
      }
      for (const image of images)
        log.info(
          `docker build: ${image.name} ${image.built ? `built in ${(image.buildMs / 1000).toFixed(1)} s` : 'already up to date'}, ${(image.sizeBytes / 1e6).toFixed(0)} MB`,
        );
      const tasks = flags.tasks ? await buildTaskImages(target, dockerOf(values).limits, log.info) : [];
      const all = [...images, ...tasks];
      process.stdout.write(flags.json ? `${JSON.stringify(all, null, 2)}\n` : all.map((image) => `${image.name}\n`).join(''));
    });
  docker
    .command('prune')
    .description('remove every container swesynth started, such as those a killed run left behind')
    .option('--json', 'print the count as JSON')
    .action(async (flags: { json?: boolean }) => {
      const removed = await pruneContainers(await connectEngine(), { staleOnly: false });
      process.stdout.write(flags.json ? `${JSON.stringify({ removed })}\n` : `removed ${removed} container${removed === 1 ? '' : 's'}\n`);
    });

  addBatchCommand(program, log);

  const statsCommand = program.command('stats');
  addOptions(statsCommand, ['config'])
    .description(
      'the funnel per operator and per bug source (proposed, parse-valid, type-valid, killed, timed out, survived, kept, tasks; for history the commits walked too) with yield and its 95% interval, per repository and overall',
    )
    .argument('[runs...]', 'run folders or repos (profile, path); default: every run under the runs folder')
    .option('--json', 'print the figures as JSON')
    .option('--html <file>', 'also write a self-contained HTML report with a chart')
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth stats                                   # every run so far\n  $ swesynth stats ../my-lib --json\n  $ swesynth stats .swesynth/runs/* --html yield.html\n',
    )
    .action(async (targets: string[], flags: { json?: boolean; html?: string }, command: Command) => {
      const stats = await collectStats(targets, optionsOf(command).values.runsDir);
      if (flags.html) {
        await writeFile(flags.html, statsHtml(stats, 'swesynth yield report'));
        log.info(`stats: wrote ${flags.html}`);
      }
      process.stdout.write(
        flags.json
          ? `${JSON.stringify(stats, null, 2)}\n`
          : `${funnelTable(stats.overall.operators, stats.overall.total)}\n\n${funnelTable(stats.overall.generators, stats.overall.total, 'source')}\n` +
              `${stats.overall.history ? `${historyLine(stats.overall.history)}\n` : ''}\n${repoTable(stats)}\n`,
      );
    });
  return program;
}

try {
  await buildProgram().parseAsync(process.argv);
} catch (error) {
  if (error instanceof UserError) {
    process.stderr.write(`swesynth: ${error.message}${error.hint ? `\n  → ${error.hint}` : ''}\n`);
  } else {
    process.stderr.write(`swesynth: unexpected error: ${(error as Error).stack ?? String(error)}\n`);
  }
  process.exitCode = 1;
}
