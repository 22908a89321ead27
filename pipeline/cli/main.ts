#!/usr/bin/env node
import { writeFile } from 'node:fs/promises';
import { Command, InvalidArgumentError, Option } from 'commander';
import type { Logger } from '../common/logger.js';
import type { StageContext, StageResult } from '../stages/context.js';
import { bytesOf, CONFIG_FILE, DEFAULTS, loadConfig } from './config.js';
import { UserError } from '../common/errors.js';
import { exportDataset } from '../stages/export.js';
import { doctor } from '../repo/doctor.js';
import { init } from '../repo/init.js';
import type { ProbeReport } from '../repo/probe.js';
import { openRun } from './services.js';
import { requireEarlierStages, STAGES } from '../stages/index.js';
import type { StageName } from '../store/run-store.js';
import { connectEngine, pruneContainers } from '../sandbox/docker.js';
import { DEFAULT_BASE_IMAGE } from '../sandbox/images.js';
import { DEFAULT_QUEUE, runWorker } from '../scheduling/bullmq.js';
import { buildImageFromProfile } from '../sandbox/workspace.js';
import { collectStats, evaluateDataset, exportFromRuns, sourcesOf, type RunSettings } from './services.js';
import { diffDatasets, verifyDataset } from '../dataset/read.js';
import { statsHtml } from '../dataset/stats-html.js';
import { funnelTable, repoTable, statsOf } from '../dataset/stats.js';
import { GENERATOR } from '../common/version.js';

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
}

function probeLine(report: ProbeReport): string {
  const ran = report.ran === 'the whole suite' ? report.ran : report.ran.join(', ');
  return `${ran}: ${report.passed} passed, ${report.failed} failed, ${report.skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s`;
}

interface Flags {
  runDir?: string;
  fresh?: boolean;
  json?: boolean;
  config?: string;
  concurrency?: number;
  seed?: number;
  operators?: string[];
  maxCandidates?: number;
  maxPerOperator?: number;
  maxPerUnit?: number;
  minComplexity?: number;
  maxUnitLines?: number;
  multiSite?: number;
  typeCheck?: boolean;
  combine?: number;
  sandbox?: 'local' | 'docker';
  visibleTests?: boolean;
  split?: 'hash' | 'repo';
  testShare?: number;
  baseImage?: string;
  dockerMemory?: string;
  dockerCpus?: number;
  baselineRuns?: number;
  wholeSuite?: boolean;
  killOnly?: boolean;
  scheduler?: 'in-process' | 'bullmq';
  redis?: string;
  queue?: string;
  dataset?: string;
  datasetVersion?: string;
  out?: string;
  progress?: boolean;
}

function probability(value: string): number {
  const parsed = Number(value);
  if (!(parsed >= 0 && parsed <= 1)) throw new InvalidArgumentError('expected a probability between 0 and 1');
  return parsed;
}

/** A cap of 0 means no cap. */
function cap(value: number): number | null {
  return value === 0 ? null : value;
}

function integer(min: number) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < min) throw new InvalidArgumentError(`expected an integer of at least ${min}`);
    return parsed;
  };
}

const log: Logger = {
  info: (message) => process.stderr.write(`${message}\n`),
  warn: (message) => process.stderr.write(`warning: ${message}\n`),
};

/** The options of a run: flags first, then the config file, then the defaults. */
function runOptionsOf(flags: Flags): RunSettings {
  const config = loadConfig(flags.config);
  return {
    runsDir: config.runsDir ?? DEFAULTS.runsDir,
    runDir: flags.runDir,
    fresh: flags.fresh ?? false,
    options: {
      concurrency: flags.concurrency ?? config.concurrency ?? DEFAULTS.concurrency,
      seed: flags.seed ?? config.seed ?? DEFAULTS.seed,
      mutation: {
        operators: flags.operators ?? config.operators ?? [],
        maxCandidates: cap(flags.maxCandidates ?? config.maxCandidates ?? DEFAULTS.maxCandidates),
        maxPerOperator: cap(flags.maxPerOperator ?? config.maxPerOperator ?? DEFAULTS.maxPerOperator),
        maxPerUnit: cap(flags.maxPerUnit ?? config.maxPerUnit ?? DEFAULTS.maxPerUnit),
        minComplexity: flags.minComplexity ?? config.minComplexity ?? DEFAULTS.minComplexity,
        maxUnitLines: flags.maxUnitLines ?? config.maxUnitLines ?? DEFAULTS.maxUnitLines,
        multiSite: flags.multiSite ?? config.multiSite ?? DEFAULTS.multiSite,
        // commander sets typeCheck to true unless --no-type-check is given, so the config file decides only then.
        typeCheck: flags.typeCheck === false ? false : config.typeCheck ?? DEFAULTS.typeCheck,
      },
      combine: flags.combine ?? config.combine ?? DEFAULTS.combine,
      sandbox: flags.sandbox ?? config.sandbox ?? DEFAULTS.sandbox,
      visibleTests: flags.visibleTests ?? config.visibleTests ?? false,
      split: flags.split ?? config.split ?? DEFAULTS.split,
      testShare: flags.testShare ?? config.testShare ?? DEFAULTS.testShare,
      docker: {
        baseImage: flags.baseImage ?? process.env.SWESYNTH_BASE_IMAGE ?? config.baseImage ?? DEFAULT_BASE_IMAGE,
        limits: { memoryBytes: bytesOf(flags.dockerMemory ?? config.dockerMemory ?? DEFAULTS.dockerMemory), cpus: flags.dockerCpus ?? config.dockerCpus ?? DEFAULTS.dockerCpus, pids: DEFAULTS.dockerPids },
      },
      baselineRuns: flags.baselineRuns ?? config.baselineRuns ?? DEFAULTS.baselineRuns,
      wholeSuite: flags.wholeSuite ?? false,
      killOnly: flags.killOnly ?? false,
      scheduler: flags.scheduler ?? config.scheduler ?? DEFAULTS.scheduler,
      redis: flags.redis ?? config.redis ?? null,
      queue: flags.queue ?? config.queue ?? DEFAULT_QUEUE,
      dataset: flags.dataset,
      datasetVersion: flags.datasetVersion ?? null,
      outDir: flags.out ?? config.out ?? DEFAULTS.out,
      progress: flags.progress !== false && !flags.json,
    },
  };
}

async function execute(target: string, flags: Flags, work: (ctx: StageContext) => Promise<StageResult[]>): Promise<void> {
  const ctx = await openRun({ target, ...runOptionsOf(flags), log });
  try {
    const results = await work(ctx);
    if (flags.json) {
      process.stdout.write(`${JSON.stringify({ run: ctx.runDir, store: ctx.store.path, stages: results, yield: statsOf(ctx.store).operators }, null, 2)}\n`);
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
  return command
    .argument('<repo>', 'a repo profile (.json), a repository path, or a git URL')
    .option('--run-dir <dir>', 'folder of this run (store, workspace); default .swesynth/runs/<owner>__<name>')
    .option('--fresh', 'discard this repository\'s earlier run and start over')
    .option('--json', 'print a machine-readable summary on stdout')
    .option('--config <file>', `settings file (default ./${CONFIG_FILE} when present)`)
    .option('--concurrency <n>', `candidates validated at once (default ${DEFAULTS.concurrency}, the CPU count)`, integer(1))
    .option('--seed <n>', `seed for sampling candidates (default ${DEFAULTS.seed})`, integer(0))
    .option('--operators <names>', 'comma-separated mutation operators (default: all)', (value: string) => value.split(',').map((name) => name.trim()).filter(Boolean))
    .option('--max-candidates <n>', `validate at most n candidates, spread over the functions (default ${DEFAULTS.maxCandidates}; 0: no cap)`, integer(0))
    .option('--max-per-operator <n>', 'at most n candidates from one operator (default: no cap)', integer(0))
    .option('--max-per-unit <n>', 'at most n candidates from one function (default: no cap; the sample spreads over functions anyway)', integer(0))
    .option('--min-complexity <n>', `skip functions of lower cyclomatic complexity (default ${DEFAULTS.minComplexity})`, integer(1))
    .option('--max-unit-lines <n>', `skip functions longer than n lines (default ${DEFAULTS.maxUnitLines})`, integer(1))
    .option('--multi-site <p>', 'also make one multi-site candidate per function, each site joining with probability p (default 0: none)', probability)
    .option('--combine <n>', 'after validation, merge kept bugs of one file into up to n harder tasks (default 0)', integer(0))
    .addOption(new Option('--no-type-check', 'keep mutants the TypeScript compiler rejects'))
    .addOption(new Option('--sandbox <kind>', `where tests run: on this machine, or in a container per candidate (default ${DEFAULTS.sandbox})`).choices(['local', 'docker']))
    .option('--base-image <name>', `base image of the environment image (default $SWESYNTH_BASE_IMAGE, else ${DEFAULT_BASE_IMAGE})`)
    .option('--docker-memory <size>', `memory limit of a container, e.g. 512m (default ${DEFAULTS.dockerMemory})`)
    .option('--docker-cpus <n>', `CPUs of a container (default ${DEFAULTS.dockerCpus})`, Number)
    .option('--baseline-runs <n>', `times the test suite runs at setup to find flaky tests (default ${DEFAULTS.baselineRuns})`, integer(2))
    .addOption(new Option('--scheduler <kind>', `where candidates are validated: in this process, or by \`swesynth worker\` processes through BullMQ (default ${DEFAULTS.scheduler})`).choices(['in-process', 'bullmq']))
    .option('--redis <url>', 'the Redis server of the bullmq scheduler, e.g. redis://127.0.0.1:6379')
    .option('--queue <name>', `the BullMQ queue, shared with the workers (default ${DEFAULT_QUEUE})`)
    .option('--whole-suite', 'validate the slow reference way: the whole test suite and the full build for every candidate, ignoring coverage')
    .option('--kill-only', 'only find out which candidates a test kills, stopping at the first failure (operator surveys; makes no tasks, so the run ends after validate)')
    .option('--dataset <name>', 'dataset name under the output folder (default <owner>__<name>)')
    .option('--dataset-version <version>', 'semantic version to write (default: the next minor version, 1.0.0 first)')
    .option('--visible-tests', 'leave the test files of FAIL_TO_PASS tests in the task (hidden and restored by test_patch by default)')
    .addOption(new Option('--split <rule>', `train/test split by a hash of the instance id or of the repository (default ${DEFAULTS.split})`).choices(['hash', 'repo']))
    .option('--test-share <share>', `share of the test split (default ${DEFAULTS.testShare})`, probability)
    .option('--out <dir>', `output folder for datasets (default ${DEFAULTS.out})`)
    .addOption(new Option('--no-progress', 'no progress bar'));
}

function stageCommand(program: Command, name: StageName, description: string, examples: string[]): void {
  const stageIndex = STAGES.findIndex((stage) => stage.name === name);
  withRunOptions(program.command(name).description(description))
    .addHelpText('after', `\nExamples:\n${examples.map((example) => `  $ ${example}`).join('\n')}\n`)
    .action(async (target: string, flags: Flags) =>
      execute(target, flags, async (ctx) => {
        requireEarlierStages(ctx, name, target);
        const stage = STAGES[stageIndex]!;
        return [name === 'export' ? await exportDataset(ctx, { again: true }) : await stage.run(ctx)];
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
    .option('--no-probe', 'skip the check that installs, builds and runs one test file (faster, but a profile that cannot work shows only in run)')
    .addHelpText(
      'after',
      '\nExamples:\n  $ swesynth init ../my-lib\n  $ swesynth init https://example.invalid/acme/lib.git --commit 4b85938 --name acme/lib\n' +
        '  $ swesynth init ../my-lib --runner mocha --set \'tests=["spec/**/*.js"]\'\n  $ swesynth init ../my-lib --no-probe --json\n',
    )
    .action(async (target: string, flags: InitFlags) => {
      const overrides: Record<string, unknown> = {};
      for (const [field, value] of [['runner', flags.runner], ['install', flags.install], ['build', flags.build]] as const) if (value !== undefined) overrides[field] = value;
      for (const assignment of flags.set ?? []) {
        const [field, ...rest] = assignment.split('=');
        try {
          overrides[field!] = JSON.parse(rest.join('='));
        } catch {
          throw new UserError(`--set ${assignment}: the value is not JSON`, 'quote strings and arrays, e.g. --set \'tests=["test/**/*.js"]\'');
        }
      }
      const result = await init(target, { commit: flags.commit, name: flags.name, overrides, reposDir: flags.repos, force: flags.force ?? false, packages: flags.package ?? [], probe: flags.probe, log });
      process.stdout.write(flags.json ? `${JSON.stringify(result.profile, null, 2)}\n` : `${result.path}\n`);
      for (const reason of result.reasons) log.info(`init: ${reason}`);
      if (result.probe) log.info(`init: probe: ${probeLine(result.probe)}`);
      const runners = result.profile.packages?.length ? result.profile.packages.map((pkg) => `${pkg.runner} (${pkg.path})`).join(', ') : result.profile.runner;
      log.info(`init: wrote ${result.path}: ${runners} via ${result.profile.packageManager}; review it, then run \`swesynth run ${result.path}\``);
    });

  program
    .command('doctor')
    .description('explain what swesynth detected in a repository and why, the command it runs, and what the whole suite does on this machine')
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
    .addHelpText('after', '\nExamples:\n  $ swesynth run repos/swesynth__example.json\n  $ swesynth run ../my-lib --max-candidates 100 --seed 7 --json\n  $ swesynth run ../my-lib --fresh\n  $ swesynth run ../my-lib --kill-only --max-candidates 1000   # kill rates per operator, fast\n')
    .action(async (target: string, flags: Flags) =>
      execute(target, flags, async (ctx) => {
        const results: StageResult[] = [];
        for (const stage of STAGES) {
          results.push(await stage.run(ctx));
          // A kill screen's verdicts make no tasks for the stages after it.
          if (stage.name === 'validate' && ctx.options.killOnly) break;
        }
        return results;
      }),
    );
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
  stageCommand(program, 'issues', 'write a problem statement for every kept candidate from its failing assertion', ['swesynth issues ../my-lib']);
  stageCommand(program, 'export', 'write the kept tasks as a new dataset version under the output folder', [
    'swesynth export ../my-lib',
    'swesynth export ../my-lib --dataset my-lib-tasks --dataset-version 2026.11 --out datasets',
  ]);
  const dataset = program.command('dataset').description('datasets: build one from several runs, verify one, compare two versions');
  withRunOptions(dataset.command('export').description('write one dataset version from the finished runs of several repositories'))
    .argument('[more...]', 'further repos')
    .addHelpText('after', '\nExamples:\n  $ swesynth dataset export repos/a.json repos/b.json repos/c.json --dataset js-bugs --dataset-version 1.0.0\n  $ swesynth dataset export repos/a.json repos/b.json --dataset js-bugs --split repo\n')
    .action(async (first: string, more: string[], flags: Flags) => {
      const written = await exportFromRuns([first, ...more], runOptionsOf(flags), log);
      process.stdout.write(flags.json ? `${JSON.stringify(written, null, 2)}\n` : `${written.path}\n`);
    });
  dataset
    .command('verify')
    .description('check a dataset folder: every file against its sha256 in the manifest, the schema, the splits, the task folders')
    .argument('<dir>', 'a dataset version folder, e.g. out/acme__widgets/1.0.0')
    .option('--json', 'print the result as JSON')
    .action((dir: string, flags: { json?: boolean }) => {
      const result = verifyDataset(dir);
      process.stdout.write(flags.json ? `${JSON.stringify(result, null, 2)}\n` : result.problems.length === 0 ? `${dir}: ${result.instances} instances, every file matches the manifest\n` : `${result.problems.map((problem) => `${dir}: ${problem}`).join('\n')}\n`);
      if (result.problems.length > 0) throw new UserError(`${dir} failed verification (${result.problems.length} problem${result.problems.length === 1 ? '' : 's'})`, 'export the dataset again');
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

  program
    .command('worker')
    .description('take validation jobs from a BullMQ queue on Redis until stopped (Ctrl-C finishes the jobs in hand)')
    .requiredOption('--redis <url>', 'the Redis server the coordinator (swesynth run --scheduler bullmq) uses')
    .option('--queue <name>', `the BullMQ queue to take jobs from (default ${DEFAULT_QUEUE})`)
    .option('--concurrency <n>', `jobs at once (default ${DEFAULTS.concurrency}, the CPU count)`, integer(1))
    .option('--work-dir <dir>', `where prepared repositories are kept between runs (default ${DEFAULTS.workDir})`)
    .option('--lock-duration <ms>', `how long a job stays with a worker that stopped answering before another takes it (default ${DEFAULTS.lockDurationMs})`, integer(1000))
    .option('--base-image <name>', `base image for environment images of runs in Docker (default $SWESYNTH_BASE_IMAGE, else ${DEFAULT_BASE_IMAGE})`)
    .option('--docker-memory <size>', `memory limit of a container (default ${DEFAULTS.dockerMemory})`)
    .option('--docker-cpus <n>', `CPUs of a container (default ${DEFAULTS.dockerCpus})`, Number)
    .addHelpText('after', '\nExamples:\n  $ swesynth worker --redis redis://10.0.0.5:6379                 # on each machine\n  $ swesynth run repos/acme__widgets.json --scheduler bullmq --redis redis://10.0.0.5:6379   # on one\n')
    .action(async (flags: { redis: string; queue?: string; concurrency?: number; workDir?: string; lockDuration?: number; baseImage?: string; dockerMemory?: string; dockerCpus?: number }) => {
      await runWorker({
        redis: flags.redis,
        queue: flags.queue ?? DEFAULT_QUEUE,
        concurrency: flags.concurrency ?? DEFAULTS.concurrency,
        workDir: flags.workDir ?? DEFAULTS.workDir,
        lockDurationMs: flags.lockDuration ?? DEFAULTS.lockDurationMs,
        docker: {
          baseImage: flags.baseImage ?? process.env.SWESYNTH_BASE_IMAGE ?? DEFAULT_BASE_IMAGE,
          limits: { memoryBytes: bytesOf(flags.dockerMemory ?? DEFAULTS.dockerMemory), cpus: flags.dockerCpus ?? DEFAULTS.dockerCpus, pids: DEFAULTS.dockerPids },
        },
        log,
      });
    });

  program
    .command('eval')
    .description('grade SWE-bench predictions on a dataset: apply each patch to its task, restore the hidden tests, run FAIL_TO_PASS and PASS_TO_PASS')
    .requiredOption('--dataset <dir>', 'a dataset version folder')
    .option('--predictions <file>', 'predictions: a JSON array or JSON Lines of {instance_id, model_name_or_path, model_patch}')
    .option('--instance <id>', 'grade one task with --patch-file instead (exit code 0 only when it is resolved)')
    .option('--patch-file <file>', 'the patch for --instance')
    .option('--concurrency <n>', `predictions graded at once (default ${DEFAULTS.concurrency})`, integer(1))
    .option('--work-dir <dir>', 'where installed workspaces are kept between evaluations', '.swesynth/eval')
    .option('--json', 'print the report as JSON')
    .addHelpText('after', '\nExamples:\n  $ swesynth eval --dataset out/acme__widgets/1.0.0 --predictions preds.jsonl\n  $ swesynth eval --dataset out/acme__widgets/1.0.0 --instance acme__widgets.equality-flip__0a1b2c3d4e5f --patch-file fix.patch\n')
    .action(async (flags: { dataset: string; predictions?: string; instance?: string; patchFile?: string; concurrency?: number; workDir: string; json?: boolean }) => {
      const report = await evaluateDataset(flags, log);
      if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      else {
        const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
        const lines = report.instances.map((result) => `${result.status.padEnd(12)} ${result.instance_id}${result.touchesTests ? '  (touches test files)' : ''}`);
        lines.push(`resolved ${report.resolved} of ${report.total}: ${percent(report.rate)} (95% CI ${percent(report.low)} – ${percent(report.high)}); ${Object.entries(report.byStatus).map(([status, n]) => `${status} ${n}`).join(', ')}`);
        process.stdout.write(`${lines.join('\n')}\n`);
      }
      if (flags.instance && report.resolved !== 1) process.exitCode = 1;
    });

  const docker = program.command('docker').description('the Docker sandbox\'s images and containers');
  docker
    .command('build')
    .description('build the environment image of a repository from its profile alone, or of every repository of a dataset')
    .argument('<repo>', 'a repo profile (.json), a repository path, or a dataset folder (its manifest names the profiles)')
    .option('--base-image <name>', `base image (default $SWESYNTH_BASE_IMAGE, else ${DEFAULT_BASE_IMAGE})`)
    .option('--json', 'print the images as JSON')
    .addHelpText('after', '\nExamples:\n  $ swesynth docker build repos/acme__widgets.json --base-image node:20-bookworm\n  $ swesynth docker build out/acme__widgets/1.0.0\n')
    .action(async (target: string, flags: { baseImage?: string; json?: boolean }) => {
      const baseImage = flags.baseImage ?? process.env.SWESYNTH_BASE_IMAGE ?? DEFAULT_BASE_IMAGE;
      const images = [];
      for (const source of sourcesOf(target)) images.push(await buildImageFromProfile(source, baseImage, log.info));
      for (const image of images) log.info(`docker build: ${image.name} ${image.built ? `built in ${(image.buildMs / 1000).toFixed(1)} s` : 'already up to date'}, ${(image.sizeBytes / 1e6).toFixed(0)} MB`);
      process.stdout.write(flags.json ? `${JSON.stringify(images, null, 2)}\n` : images.map((image) => `${image.name}\n`).join(''));
    });
  docker
    .command('prune')
    .description('remove every container swesynth started, such as those a killed run left behind')
    .option('--json', 'print the count as JSON')
    .action(async (flags: { json?: boolean }) => {
      const removed = await pruneContainers(await connectEngine(), { staleOnly: false });
      process.stdout.write(flags.json ? `${JSON.stringify({ removed })}\n` : `removed ${removed} container${removed === 1 ? '' : 's'}\n`);
    });

  program
    .command('stats')
    .description('the funnel per operator (proposed, parse-valid, type-valid, killed, timed out, survived, kept, tasks) with yield and its 95% interval, per repository and overall')
    .argument('[runs...]', 'run folders or repos (profile, path); default: every run under the runs folder')
    .option('--json', 'print the figures as JSON')
    .option('--html <file>', 'also write a self-contained HTML report with a chart')
    .option('--config <file>', `settings file (default ./${CONFIG_FILE} when present)`)
    .addHelpText('after', '\nExamples:\n  $ swesynth stats                                   # every run so far\n  $ swesynth stats ../my-lib --json\n  $ swesynth stats .swesynth/runs/* --html yield.html\n')
    .action(async (targets: string[], flags: { json?: boolean; html?: string; config?: string }) => {
      const config = loadConfig(flags.config);
      const stats = await collectStats(targets, config.runsDir ?? DEFAULTS.runsDir);
      if (flags.html) {
        await writeFile(flags.html, statsHtml(stats, 'swesynth yield report'));
        log.info(`stats: wrote ${flags.html}`);
      }
      process.stdout.write(flags.json ? `${JSON.stringify(stats, null, 2)}\n` : `${funnelTable(stats.overall.operators, stats.overall.total)}\n\n${repoTable(stats)}\n`);
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
