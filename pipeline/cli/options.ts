import { availableParallelism } from 'node:os';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { z } from 'zod';
import { OPERATORS } from '../../mutators/registry.js';
import { UserError } from '../common/errors.js';
import { TIERS } from '../dataset/difficulty.js';
import { DEFAULT_FORMATS, FORMAT_NAMES } from '../dataset/formats/index.js';
import { DEFAULT_BASE_IMAGE } from '../sandbox/images.js';
import { DEFAULT_LOCK_DURATION_MS, DEFAULT_QUEUE } from '../scheduling/bullmq.js';
import { llmConfigFromEnv } from '../statements/llm-writer.js';
import { BugSource, type MutationSettings } from '../store/records.js';
import type { RunShape } from '../store/summaries.js';

/** The stages whose output an option decides: a run keeps the value such a stage finished with. */
export type ShapedStage = 'setup' | 'mutate' | 'combine';

/** One option: its type and default, how the CLI and the config file name it, and what it changes. */
interface OptionSpec<T extends z.ZodType> {
  type: T;
  default: z.output<T>;
  description: string;
  /** How --help states the default when not as the value itself; null: it states none. */
  shownDefault?: string | null;
  /** The flag with its argument (`--seed <n>`); `--x` alone is a switch, `--no-x` one that turns a default of true off. */
  flag?: string;
  /** Whether swesynth.config.json may set it. */
  config: boolean;
  /** An environment variable that sets it when the flag is not given; it beats the config file. */
  env?: string;
  shapes?: ShapedStage;
}

const option = <T extends z.ZodType, const S extends ShapedStage | undefined = undefined>(spec: OptionSpec<T> & { shapes?: S }) =>
  spec as OptionSpec<T> & { shapes: S };

const integer = (min: number) =>
  z.number('expected a number').int(`expected an integer of at least ${min}`).min(min, `expected an integer of at least ${min}`);
const share = z.number('expected a number').min(0, 'expected a number between 0 and 1').max(1, 'expected a number between 0 and 1');
const KNOWN_OPERATORS = OPERATORS.map((operator) => operator.name);
const operatorNames = z.array(z.string()).superRefine((names, ctx) => {
  const unknown = names.filter((name) => !KNOWN_OPERATORS.includes(name));
  if (unknown.length > 0)
    ctx.addIssue({
      code: 'custom',
      message: `unknown operator${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; the operators are ${KNOWN_OPERATORS.join(', ')}`,
    });
});
const sourceNames = z
  .array(
    z.enum(BugSource.options, {
      error: (issue) => `unknown source ${String(issue.input)}; the sources are ${BugSource.options.join(', ')}`,
    }),
  )
  .min(1, `expected one or more of ${BugSource.options.join(', ')}`);
const SIZE = /^\d+(\.\d+)?[kmg]?$/i;

/** Every option of a run and of a worker; the CLI flags, the config file, the defaults and RunOptions come from here. */
export const OPTIONS = {
  runDir: option({
    type: z.string().min(1).nullable(),
    default: null,
    shownDefault: '.swesynth/runs/<owner>__<name>',
    flag: '--run-dir <dir>',
    config: false,
    description: 'folder of this run (store, workspace)',
  }),
  config: option({
    type: z.string().min(1).nullable(),
    default: null,
    shownDefault: `./swesynth.config.json when present`,
    flag: '--config <file>',
    config: false,
    description: 'settings file',
  }),
  runsDir: option({ type: z.string().min(1), default: '.swesynth/runs', config: true, description: 'where runs are kept' }),
  fresh: option({
    type: z.boolean(),
    default: false,
    shownDefault: null,
    flag: '--fresh',
    config: false,
    description: "discard this repository's earlier run and start over",
  }),
  json: option({
    type: z.boolean(),
    default: false,
    shownDefault: null,
    flag: '--json',
    config: false,
    description: 'print a machine-readable summary on stdout',
  }),
  concurrency: option({
    type: integer(1),
    default: Math.max(1, availableParallelism()),
    shownDefault: `${Math.max(1, availableParallelism())}, the CPU count`,
    flag: '--concurrency <n>',
    config: true,
    description: 'candidates validated at once',
  }),
  budget: option({
    type: integer(1),
    default: 200,
    flag: '--budget <edits>',
    config: true,
    description: 'edits the repair search tries per task before giving up',
  }),
  seed: option({
    type: integer(0),
    default: 1,
    flag: '--seed <n>',
    config: true,
    shapes: 'mutate',
    description: 'seed for sampling candidates',
  }),
  operators: option({
    type: operatorNames,
    default: [],
    shownDefault: 'all',
    flag: '--operators <names>',
    config: true,
    shapes: 'mutate',
    description: 'comma-separated mutation operators',
  }),
  sources: option({
    type: sourceNames,
    default: ['operators'] as BugSource[],
    flag: '--sources <names>',
    config: true,
    shapes: 'mutate',
    description: "where bugs come from: operators (mutation operators), history (the repository's own commits, reverted)",
  }),
  historyDepth: option({
    type: integer(1),
    default: 1000,
    flag: '--history-depth <n>',
    config: true,
    shapes: 'mutate',
    description: 'commits of the first-parent history the history source walks back from the base commit',
  }),
  historyMaxLines: option({
    type: integer(1),
    default: 60,
    flag: '--history-max-lines <n>',
    config: true,
    shapes: 'mutate',
    description: 'skip commits whose source change is larger than n changed lines',
  }),
  maxCandidates: option({
    // Enough for a dataset of a few hundred tasks from a repository in minutes.
    type: integer(0),
    default: 250,
    shownDefault: '250; 0: no cap',
    flag: '--max-candidates <n>',
    config: true,
    shapes: 'mutate',
    description: 'validate at most n candidates of each source, spread over the functions',
  }),
  maxPerOperator: option({
    type: integer(0),
    default: 0,
    shownDefault: 'no cap',
    flag: '--max-per-operator <n>',
    config: true,
    shapes: 'mutate',
    description: 'at most n candidates from one operator',
  }),
  maxPerUnit: option({
    type: integer(0),
    default: 0,
    shownDefault: 'no cap',
    flag: '--max-per-unit <n>',
    config: true,
    shapes: 'mutate',
    description: 'at most n candidates from one function (the sample spreads over functions anyway)',
  }),
  minComplexity: option({
    type: integer(1),
    default: 1,
    flag: '--min-complexity <n>',
    config: true,
    shapes: 'mutate',
    description: 'skip functions of lower cyclomatic complexity',
  }),
  maxUnitLines: option({
    type: integer(1),
    default: 300,
    flag: '--max-unit-lines <n>',
    config: true,
    shapes: 'mutate',
    description: 'skip functions longer than n lines',
  }),
  multiSite: option({
    type: share,
    default: 0,
    shownDefault: '0: none',
    flag: '--multi-site <p>',
    config: true,
    shapes: 'mutate',
    description: 'also make one multi-site candidate per function, each site joining with probability p',
  }),
  combine: option({
    type: integer(0),
    default: 0,
    flag: '--combine <n>',
    config: true,
    shapes: 'combine',
    description: 'after validation, merge kept bugs of one file into up to n harder tasks',
  }),
  typeCheck: option({
    type: z.boolean(),
    default: true,
    shownDefault: null,
    flag: '--no-type-check',
    config: true,
    shapes: 'mutate',
    description: 'keep mutants the TypeScript compiler rejects',
  }),
  sandbox: option({
    type: z.enum(['local', 'docker']),
    default: 'local',
    flag: '--sandbox <kind>',
    config: true,
    shapes: 'setup',
    description: 'where tests run: on this machine, or in a container per candidate',
  }),
  baseImage: option({
    type: z.string().min(1),
    default: DEFAULT_BASE_IMAGE,
    shownDefault: `$SWESYNTH_BASE_IMAGE, else ${DEFAULT_BASE_IMAGE}`,
    flag: '--base-image <name>',
    config: true,
    env: 'SWESYNTH_BASE_IMAGE',
    description: 'base image of the environment image',
  }),
  dockerMemory: option({
    type: z.string().regex(SIZE, 'expected a size such as 512m or 2g'),
    default: '2g',
    flag: '--docker-memory <size>',
    config: true,
    description: 'memory limit of a container, e.g. 512m',
  }),
  dockerCpus: option({
    type: z.number('expected a number').positive('expected a positive number'),
    default: 1,
    flag: '--docker-cpus <n>',
    config: true,
    description: 'CPUs of a container',
  }),
  baselineRuns: option({
    type: integer(2),
    default: 3,
    flag: '--baseline-runs <n>',
    config: true,
    shapes: 'setup',
    description: 'times the test suite runs at setup to find flaky tests',
  }),
  slowTest: option({
    type: z.number('expected a number').min(0, 'expected a number of seconds, 0 or more'),
    default: 30,
    flag: '--slow-test <seconds>',
    config: true,
    shapes: 'setup',
    description:
      'the baseline ends a test at this limit; one that takes longer at the first baseline run is set aside: left out of every later run, where its runner can leave one test out (0: no limit)',
  }),
  scheduler: option({
    type: z.enum(['in-process', 'bullmq']),
    default: 'in-process',
    flag: '--scheduler <kind>',
    config: true,
    description: 'where candidates are validated: in this process, or by `swesynth worker` processes through BullMQ',
  }),
  redis: option({
    type: z.url('expected a URL such as redis://127.0.0.1:6379').nullable(),
    default: null,
    shownDefault: null,
    flag: '--redis <url>',
    config: true,
    description: 'the Redis server of the bullmq scheduler, e.g. redis://127.0.0.1:6379',
  }),
  queue: option({
    type: z.string().min(1),
    default: DEFAULT_QUEUE,
    flag: '--queue <name>',
    config: true,
    description: 'the BullMQ queue, shared with the workers',
  }),
  wholeSuite: option({
    type: z.boolean(),
    default: false,
    shownDefault: null,
    flag: '--whole-suite',
    config: false,
    description: 'validate the slow reference way: the whole test suite and the full build for every candidate, ignoring coverage',
  }),
  killOnly: option({
    type: z.boolean(),
    default: false,
    shownDefault: null,
    flag: '--kill-only',
    config: false,
    description:
      'only find out which candidates a test kills, stopping at the first failure (operator surveys; makes no tasks, so the run ends after validate)',
  }),
  dataset: option({
    type: z.string().min(1).nullable(),
    default: null,
    shownDefault: '<owner>__<name>',
    flag: '--dataset <name>',
    config: false,
    description: 'dataset name under the output folder',
  }),
  datasetVersion: option({
    type: z.string().min(1).nullable(),
    default: null,
    shownDefault: 'the next minor version, 1.0.0 first',
    flag: '--dataset-version <version>',
    config: false,
    description: 'semantic version to write',
  }),
  visibleTests: option({
    type: z.boolean(),
    default: false,
    shownDefault: null,
    flag: '--visible-tests',
    config: true,
    description: 'leave the test files of FAIL_TO_PASS tests in the task (hidden and restored by test_patch by default)',
  }),
  split: option({
    type: z.enum(['hash', 'repo']),
    default: 'hash',
    flag: '--split <rule>',
    config: true,
    description: 'train/test split by a hash of the instance id or of the repository',
  }),
  testShare: option({ type: share, default: 0.2, flag: '--test-share <share>', config: true, description: 'share of the test split' }),
  difficulty: option({
    type: z.array(z.enum(TIERS, `expected tiers among ${TIERS.join(', ')}`)).min(1, `expected one or more of ${TIERS.join(', ')}`),
    default: [...TIERS],
    shownDefault: TIERS.join(','),
    flag: '--difficulty <tiers>',
    config: true,
    description: 'comma-separated difficulty tiers to export (the README says how tiers are read)',
  }),
  maxPerFunction: option({
    type: integer(0),
    default: 0,
    shownDefault: '0: no cap',
    flag: '--max-per-function <n>',
    config: true,
    description: 'export at most n tasks of one function',
  }),
  search: option({
    type: z.boolean(),
    default: false,
    flag: '--search',
    config: true,
    description:
      "run the repair search (see `swesynth solve`) on each task at export: whether it found a fix within --budget edits, and how many it took, go into the task's difficulty",
  }),
  maxF2pShare: option({
    type: share,
    default: 0.2,
    flag: '--max-f2p-share <share>',
    config: true,
    description: 'export no task whose FAIL_TO_PASS holds more than this share of the stable tests and more than 10 tests',
  }),
  formats: option({
    type: z.array(z.enum(FORMAT_NAMES, `expected export formats among ${FORMAT_NAMES.join(', ')}`)),
    default: DEFAULT_FORMATS,
    shownDefault: `${DEFAULT_FORMATS.join(',')}: every format that needs no Docker engine`,
    flag: '--formats <names>',
    config: true,
    description: `comma-separated export formats (${FORMAT_NAMES.join(', ')}); swe-bench is always written`,
  }),
  publishedImages: option({
    type: z.string().min(1).nullable(),
    default: null,
    flag: '--published-images <registry>',
    config: true,
    description:
      "where you publish swesynth's images (a registry and namespace): Harbor tasks then start from the environment image there and name the task's image as docker_image",
  }),
  out: option({ type: z.string().min(1), default: 'out', flag: '--out <dir>', config: true, description: 'output folder for datasets' }),
  progress: option({
    type: z.boolean(),
    default: true,
    shownDefault: null,
    flag: '--no-progress',
    config: false,
    description: 'no progress bar',
  }),
  workDir: option({
    type: z.string().min(1),
    default: '.swesynth/worker',
    flag: '--work-dir <dir>',
    config: false,
    description: 'where prepared repositories are kept between runs',
  }),
  lockDuration: option({
    type: integer(1000),
    default: DEFAULT_LOCK_DURATION_MS,
    flag: '--lock-duration <ms>',
    config: false,
    description: 'how long a job stays with a worker that stopped answering before another takes it',
  }),
};

export type OptionName = keyof typeof OPTIONS;
export type OptionValues = { -readonly [K in OptionName]: z.output<(typeof OPTIONS)[K]['type']> };
type AnySpec = OptionSpec<z.ZodType>;
const specs = Object.entries(OPTIONS) as Array<[OptionName, AnySpec]>;

/** The options of `swesynth run` and of each stage command; a worker takes the few it needs. */
export const RUN_OPTIONS: readonly OptionName[] = specs
  .map(([name]) => name)
  .filter((name) => name !== 'runsDir' && name !== 'workDir' && name !== 'lockDuration');
export const WORKER_OPTIONS: readonly OptionName[] = [
  'redis',
  'queue',
  'concurrency',
  'workDir',
  'lockDuration',
  'baseImage',
  'dockerMemory',
  'dockerCpus',
];

export const DEFAULTS = Object.fromEntries(specs.map(([name, spec]) => [name, spec.default])) as OptionValues;
/** Not an option: a fork bomb in a mutant stops here. */
const DOCKER_PIDS = 1024;

const why = (error: z.ZodError): string => error.issues.map((issue) => issue.message).join('; ');

/** The value a flag's text stands for, before its type checks it. */
function fromText(spec: AnySpec, text: string): unknown {
  const type = spec.type instanceof z.ZodNullable ? spec.type.unwrap() : spec.type;
  if (type instanceof z.ZodNumber) return text.trim() === '' ? Number.NaN : Number(text);
  if (type instanceof z.ZodArray)
    return text
      .split(',')
      .map((name) => name.trim())
      .filter(Boolean);
  return text;
}

/** How one command words an option: its description, and its default where the command takes another. */
type Wording = string | { description: string; shownDefault: string | null };

/** Adds the named options to a command, each checked by its type when parsed; `describe` words one for this command. */
export function addOptions(command: Command, names: readonly OptionName[], describe: Partial<Record<OptionName, Wording>> = {}): Command {
  for (const name of names) {
    const spec: AnySpec = OPTIONS[name];
    if (!spec.flag) continue;
    const wording = describe[name];
    const shownDefault = typeof wording === 'object' ? wording.shownDefault : spec.shownDefault;
    const shown = shownDefault === undefined ? String(spec.default) : shownDefault;
    const description = typeof wording === 'object' ? wording.description : (wording ?? spec.description);
    const flag = new Option(spec.flag, `${description}${shown === null ? '' : ` (default ${shown})`}`);
    if (spec.type instanceof z.ZodEnum) flag.choices(spec.type.options as string[]);
    else if (flag.required) {
      flag.argParser((text: string) => {
        const parsed = spec.type.safeParse(fromText(spec, text));
        if (!parsed.success) throw new InvalidArgumentError(why(parsed.error));
        return parsed.data;
      });
    }
    command.addOption(flag);
  }
  return command;
}

export const CONFIG_FILE = 'swesynth.config.json';

/** Settings a user repeats across runs; flags on the command line override them. */
export const ConfigFile = z
  .object(Object.fromEntries(specs.filter(([, spec]) => spec.config).map(([name, spec]) => [name, spec.type])))
  .partial()
  .strict() as unknown as z.ZodType<Partial<OptionValues>>;
export const CONFIG_KEYS = specs.filter(([, spec]) => spec.config).map(([name]) => name);

/** Where each value came from: only a value the user chose can conflict with the run it resumes. */
export interface ResolvedOptions {
  values: OptionValues;
  chosen: ReadonlySet<OptionName>;
}

/**
 * The options of a command: a flag given, else its environment variable, else the config file,
 * else the default. Values from the environment are checked here; flags and the file already were.
 */
export function resolveOptions(command: Command, config: Partial<OptionValues>, env: NodeJS.ProcessEnv = process.env): ResolvedOptions {
  const flags = command.opts();
  const values = { ...DEFAULTS };
  const chosen = new Set<OptionName>();
  const set = <K extends OptionName>(name: K, value: OptionValues[K]) => {
    values[name] = value;
    chosen.add(name);
  };
  for (const [name, spec] of specs) {
    const envText = spec.env ? env[spec.env] : undefined;
    if (command.getOptionValueSource(name) === 'cli') set(name, flags[name] as never);
    else if (spec.env && envText) {
      const parsed = spec.type.safeParse(fromText(spec, envText));
      if (!parsed.success) throw new UserError(`${spec.env}=${envText}: ${why(parsed.error)}`);
      set(name, parsed.data as never);
    } else if (config[name] !== undefined) set(name, config[name] as never);
  }
  if (values.scheduler === 'bullmq' && !values.redis)
    throw new UserError('the bullmq scheduler needs a Redis server', 'pass --redis redis://host:6379');
  return { values, chosen };
}

/** Bytes in a size such as `512m` or `2g`. */
export function bytesOf(size: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(size.trim());
  if (!match) throw new UserError(`"${size}" is not a size`, 'write it like 512m or 2g');
  return Math.round(Number(match[1]) * 1024 ** ' kmg'.indexOf((match[2] || ' ').toLowerCase()));
}

/** A cap of 0 means no cap. */
const cap = (value: number): number | null => (value === 0 ? null : value);

export const dockerOf = (values: Pick<OptionValues, 'baseImage' | 'dockerMemory' | 'dockerCpus'>) => ({
  baseImage: values.baseImage,
  limits: { memoryBytes: bytesOf(values.dockerMemory), cpus: values.dockerCpus, pids: DOCKER_PIDS },
});

/** The options every stage reads, from the option values and the dataset's name. */
export function runOptionsFrom(values: OptionValues, dataset: string) {
  return {
    concurrency: values.concurrency,
    seed: values.seed,
    mutation: {
      operators: values.operators,
      maxCandidates: cap(values.maxCandidates),
      maxPerOperator: cap(values.maxPerOperator),
      maxPerUnit: cap(values.maxPerUnit),
      minComplexity: values.minComplexity,
      maxUnitLines: values.maxUnitLines,
      multiSite: values.multiSite,
      typeCheck: values.typeCheck,
      sources: values.sources,
      historyDepth: values.historyDepth,
      historyMaxLines: values.historyMaxLines,
    } satisfies Omit<MutationSettings, 'seed'>,
    sandbox: values.sandbox,
    visibleTests: values.visibleTests,
    split: values.split,
    testShare: values.testShare,
    formats: values.formats,
    publishedImages: values.publishedImages,
    curation: { maxF2pShare: values.maxF2pShare, tiers: values.difficulty, maxPerFunction: cap(values.maxPerFunction) },
    /** The repair search's budget per task at export, or null when the export does not run it. */
    searchBudget: values.search ? values.budget : null,
    docker: dockerOf(values),
    combine: values.combine,
    baselineRuns: values.baselineRuns,
    slowTestMs: values.slowTest * 1000,
    wholeSuite: values.wholeSuite,
    killOnly: values.killOnly,
    scheduler: values.scheduler,
    redis: values.redis,
    queue: values.queue,
    dataset: values.dataset ?? dataset,
    datasetVersion: values.datasetVersion,
    outDir: values.out,
    progress: values.progress && !values.json,
    /** The language model that writes statements (from the environment: it holds a key), or null for the templates. */
    llm: llmConfigFromEnv(),
  };
}
export type RunOptions = ReturnType<typeof runOptionsFrom>;

type Shaping = { [K in OptionName]: (typeof OPTIONS)[K]['shapes'] extends ShapedStage ? K : never }[OptionName];
const SHAPING = specs.filter(([, spec]) => spec.shapes !== undefined) as Array<[Shaping, AnySpec & { shapes: ShapedStage }]>;

/** The run store's record of a run's options holds exactly the options that shape a stage, with their types. */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const recordFitsOptions: Same<Required<RunShape>, Pick<OptionValues, Shaping>> = true;
void recordFitsOptions;

/** How a value reads on the command line, to tell the user what the run was made with. */
function asFlag(name: OptionName, value: unknown): string {
  const spec: AnySpec = OPTIONS[name];
  const flag = spec.flag!.split(' ')[0]!;
  if (typeof value === 'boolean') return `${flag} ${value === spec.default ? 'off' : 'on'}`;
  return `${flag} ${Array.isArray(value) ? value.join(',') || '(all)' : String(value)}`;
}

/**
 * Holds a resumed run to what it was made with: an option that decides a finished stage's output
 * takes the run's value unless the user chose another, which is refused in one sentence. The
 * values for stages still to run are recorded, so that the next invocation is held to them.
 */
export function keepRunShape(
  options: ResolvedOptions,
  run: { recorded: RunShape | undefined; finished(stage: ShapedStage): boolean; record(shape: RunShape): void; dir: string },
): OptionValues {
  const values = { ...options.values };
  const recorded = run.recorded ?? {};
  const differing: string[] = [];
  const shape: RunShape = {};
  for (const [name, spec] of SHAPING) {
    const before = recorded[name];
    if (run.finished(spec.shapes) && before !== undefined) {
      if (options.chosen.has(name) && JSON.stringify(before) !== JSON.stringify(values[name]))
        differing.push(`${asFlag(name, before)} (now ${asFlag(name, values[name])})`);
      (values as Record<string, unknown>)[name] = before;
    }
    (shape as Record<string, unknown>)[name] = values[name];
  }
  if (differing.length > 0) {
    throw new UserError(
      `the run in ${run.dir} was made with ${differing.join(', ')}`,
      'pass the same options to resume it, --fresh to start it over, or --run-dir <dir> for a second run beside it',
    );
  }
  run.record(shape);
  return values;
}
