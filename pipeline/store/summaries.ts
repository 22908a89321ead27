import { z } from 'zod';
import { BugSource, CoverageMap, Environment, ExportRecord, HistoryFunnel, MutationSettings, OperatorFunnel } from './records.js';

/** What each stage reports when it finishes; the store keeps it, the CLI prints it with --json. */
export const SetupSummary = z.object({
  tests: z.number().int(),
  stable: z.number().int(),
  flaky: z.number().int(),
  failing: z.number().int(),
  skipped: z.number().int(),
  /** Tests set aside as too slow to run for every candidate (Environment.setAside names them). */
  setAside: z.number().int().default(0),
  baselineMs: z.number(),
  baseCommit: z.string(),
  /** The Node.js version the baseline ran on; null when an image cannot tell. */
  node: z.string().nullable(),
  image: z.string().optional(),
  imageBuilt: z.boolean().optional(),
  imageBuildMs: z.number().optional(),
  imageBytes: z.number().optional(),
  coverageMs: z.number(),
  coverageMeasured: z.number().int(),
});

export const MutateSummary = z.object({
  sourceFiles: z.number().int(),
  /** Files left out, by the reason. */
  excluded: z.record(z.string(), z.array(z.string())),
  unparsable: z.array(z.string()),
  mutants: z.number().int(),
  /** Mutants in code no test executes, sampled last (absent in runs from before it was counted). */
  unreachedMutants: z.number().int().optional(),
  candidates: z.number().int(),
  typeCheck: z.object({ checked: z.number().int(), rejected: z.number().int(), setupMs: z.number(), msPerMutant: z.number() }).nullable(),
});

export const WorkerThroughput = z.object({
  worker: z.string(),
  candidates: z.number().int(),
  /** Time spent on its jobs, summed over the worker's concurrent slots. */
  busyMs: z.number(),
  /** From the start of its first job to the end of its last. */
  spanMs: z.number(),
  candidatesPerMinute: z.number(),
});
export type WorkerThroughput = z.infer<typeof WorkerThroughput>;

export const ValidateSummary = z.object({
  candidates: z.number().int(),
  validatedNow: z.number().int(),
  /** Verdict counts by status. */
  verdicts: z.record(z.string(), z.number().int()),
  kept: z.number().int(),
  /** A kill screen (--kill-only): its verdicts make no tasks. */
  killOnly: z.boolean(),
  /** Per queue worker, when validation ran on BullMQ. */
  workers: z.array(WorkerThroughput).optional(),
});

export const CombineSummary = z.object({ combined: z.number().int(), kept: z.number().int() });

export const IssuesSummary = z.object({
  written: z.number().int(),
  /** Statements whose repro ran on the buggy and the fixed code as the statement says (absent in runs from before repros ran). */
  reprosExecuted: z.number().int().optional(),
  /** Of those, repros that are a test for the repository's own suite, where no script with Node alone could show the bug. */
  reproTestFiles: z.number().int().optional(),
  rejected: z.number().int(),
  llmFallbacks: z.number().int(),
});

const Graded = z.object({ resolved: z.number().int(), total: z.number().int() });
/** How the tasks fare when graded as an agent gets them: the fix, an empty patch and the bug itself. */
export const SelfCheck = z.object({
  gold: Graded,
  empty: Graded,
  bug: Graded,
  /** Each task the fix did not resolve, or an empty patch or the bug itself did, and how (absent before it was kept). */
  failed: z.array(z.object({ instance_id: z.string(), reason: z.string() })).optional(),
});
export type SelfCheck = z.infer<typeof SelfCheck>;

export const ExportSummary = ExportRecord.extend({ selfCheck: SelfCheck });

/** A stage's wall time, written once it finishes (absent in runs from before it was kept). */
const timed = <T extends z.ZodRawShape>(summary: z.ZodObject<T>) => summary.extend({ durationMs: z.number().optional() });

/** Each stage's summary schema, by stage name, in pipeline order. */
export const STAGE_SUMMARIES = {
  setup: timed(SetupSummary),
  mutate: timed(MutateSummary),
  validate: timed(ValidateSummary),
  combine: timed(CombineSummary),
  issues: timed(IssuesSummary),
  export: timed(ExportSummary),
} as const;
export type StageName = keyof typeof STAGE_SUMMARIES;
export type StageSummary<S extends StageName> = z.infer<(typeof STAGE_SUMMARIES)[S]>;

/** What a stage returns: its summary, and whether an earlier invocation had already finished it (so this one did nothing). */
export type StageResult = { [S in StageName]: { stage: S; alreadyDone: boolean } & StageSummary<S> }[StageName];

/**
 * The options a run was made with, each recorded once the stage it shapes has finished with it
 * (pipeline/cli/options.ts declares them and checks that these fields are exactly those options).
 */
export const RunShape = z
  .object({
    sandbox: Environment.shape.sandbox,
    baselineRuns: z.number().int(),
    slowTest: z.number(),
    seed: z.number().int(),
    operators: z.array(z.string()),
    /** Caps as given: 0 means no cap. */
    maxCandidates: z.number().int(),
    maxPerOperator: z.number().int(),
    maxPerUnit: z.number().int(),
    minComplexity: z.number().int(),
    maxUnitLines: z.number().int(),
    multiSite: z.number(),
    typeCheck: z.boolean(),
    sources: z.array(BugSource),
    historyDepth: z.number().int(),
    historyMaxLines: z.number().int(),
    combine: z.number().int(),
  })
  .partial();
export type RunShape = z.infer<typeof RunShape>;

/** The run's single-valued records, by meta key. */
export const META = {
  /** The record layout the run was made with. */
  schema: z.number().int(),
  environment: Environment,
  coverage: CoverageMap,
  mutation: MutationSettings,
  funnel: z.array(OperatorFunnel),
  /** The history generator's walk, when history was a source. */
  history: HistoryFunnel,
  /** The BullMQ run id, kept so that a resumed coordinator finds its jobs. */
  queueRun: z.string(),
  options: RunShape,
  /** The export under way, saved before any file is written: a run killed after writing finds its version by it. */
  pendingExport: z.object({ dataset: z.string(), createdAt: z.string() }).nullable(),
} as const;
export type MetaKey = keyof typeof META;
export type MetaValue<K extends MetaKey> = z.infer<(typeof META)[K]>;
