import { z } from 'zod';
import { Failure, TestStatus } from '../runners/types.js';
import { LlmSettings } from '../statements/llm-writer.js';
import { Difficulty } from '../dataset/difficulty.js';

/** What setup learned about the repository; later stages read it instead of the file system. */
export const Environment = z.object({
  /** The repository's name from its profile, e.g. `acme/widgets`. */
  repo: z.string(),
  workspace: z.string(),
  baseCommit: z.string(),
  /** The repository's own version (package.json), SWE-bench's `version` field. */
  repoVersion: z.string(),
  testFiles: z.array(z.string()),
  baselineRuns: z.number().int(),
  /** The slowest full baseline run. */
  baselineMs: z.number(),
  /** Time allowed for one candidate's test run. */
  timeoutMs: z.number().int(),
  /**
   * Tests set aside at setup as too slow to run for every candidate (file repository-relative),
   * with their time at the first baseline run: no later run runs them.
   */
  setAside: z.array(z.object({ id: z.string(), file: z.string(), titlePath: z.array(z.string()), durationMs: z.number() })).default([]),
  /** Where commands run: the local machine, or containers from the environment image. */
  sandbox: z.enum(['local', 'docker']).default('local'),
  image: z.string().nullable().default(null),
});
export type Environment = z.infer<typeof Environment>;

export const BaselineTest = z.object({
  id: z.string(),
  file: z.string(),
  titlePath: z.array(z.string()),
  /** Status in each baseline run, in order. */
  statuses: z.array(TestStatus.or(z.literal('missing'))),
  /** stable: passed every run; flaky: differed between runs; failing/skipped: the same every run. */
  verdict: z.enum(['stable', 'flaky', 'failing', 'skipped']),
  durationMs: z.number(),
});
export type BaselineTest = z.infer<typeof BaselineTest>;

/** What one test file executes, learned by running it alone under V8 coverage at setup. */
export const TestFileCoverage = z.object({
  file: z.string(),
  /** Wall time of the file's run on its own, process start included. */
  durationMs: z.number(),
  /** False when the run gave no usable coverage: the file is then assumed to execute everything. */
  measured: z.boolean(),
  /**
   * Per file the run loaded (repository-relative, as executed: a source file, or its built output),
   * the functions that ran, by their short name, with their call counts.
   */
  executed: z.record(z.string(), z.record(z.string(), z.number())),
  /**
   * The tests that passed in the file's run on its own. Where test files share a process, a stable
   * test missing here needs another file run before it (a setup file run as a test), and the file
   * runs only with the whole suite. (Absent in runs set up before it was recorded: every file then.)
   */
  passedAlone: z.array(z.string()).optional(),
});
export type TestFileCoverage = z.infer<typeof TestFileCoverage>;

export const CoverageMap = z.object({
  testFiles: z.array(TestFileCoverage),
  /** Per loaded file, every function V8 saw there, run or not (to tell "never ran" from "name unknown"). */
  known: z.record(z.string(), z.array(z.string())),
  /**
   * Per source file, the loaded built files made from it, its code running there: those whose source
   * maps name it (a bundle), or, without a map, those the compiler's tsconfig writes from it.
   */
  bundled: z.record(z.string(), z.array(z.string())).default({}),
  learnedMs: z.number(),
});
export type CoverageMap = z.infer<typeof CoverageMap>;

/** One changed place: an edit to a file's text, and the strategy (operator, `revert`) and unit it came from. */
export const Site = z.object({
  file: z.string(),
  operator: z.string(),
  unit: z.string(),
  start: z.number().int(),
  end: z.number().int(),
  replacement: z.string(),
  /** The text the edit replaced. */
  original: z.string(),
  startLine: z.number().int(),
  endLine: z.number().int(),
});
export type Site = z.infer<typeof Site>;

/** The commit a history candidate reverts, and what the leak check needs of it. */
export const CommitOrigin = z.object({
  kind: z.literal('commit'),
  hash: z.string(),
  /** The commit's author date, ISO 8601. */
  date: z.string(),
  subject: z.string(),
  /** Subject and body, the author's name and the linked issues are what a statement must never repeat. */
  message: z.string(),
  author: z.string(),
  /** The commit changed test files too: the likeliest kind of fix. */
  changedTests: z.boolean(),
});
export type CommitOrigin = z.infer<typeof CommitOrigin>;

/** The kept candidates a combined candidate merges. */
export const MergeOrigin = z.object({ kind: z.literal('merge'), parents: z.array(z.string()).min(2) });

/** Where a candidate comes from: the generator that proposed it, how, in which units, and its origin. */
export const Provenance = z.object({
  /** The bug source (mutators/generators): operators, multi-site, history, combined. */
  generator: z.string(),
  /** How it made the bug: the operator's name, `multi-site`, `revert` or `combined`. */
  strategy: z.string(),
  /** The operator's family; the generator's name for the others. */
  family: z.string(),
  /** Every unit the sites change, in order. */
  units: z.array(z.string()),
  origin: z.discriminatedUnion('kind', [CommitOrigin, MergeOrigin]).nullable(),
});
export type Provenance = z.infer<typeof Provenance>;

export const Candidate = z.object({
  id: z.string(),
  provenance: Provenance,
  /** The file and unit of the first site. */
  file: z.string(),
  unit: z.string(),
  sites: z.array(Site).min(1),
  /** Introduces the bug into the clean repository. */
  bugPatch: z.string(),
  /** Repairs it: the reverse of bugPatch. */
  fixPatch: z.string(),
});
export type Candidate = z.infer<typeof Candidate>;

export const VerdictStatus = z.enum([
  /** A stable test fails, none times out, one still passes, and the fix turns every failure green. */
  'kept',
  /** No stable-passing test noticed the mutant. */
  'survived',
  /** A kill screen saw a stable test fail and stopped there: no lists, no fix check, not a task. */
  'killed',
  'timeout',
  /**
   * A test process ran out of memory (V8's heap limit, or the sandbox's memory): like a timeout,
   * the mutant exhausts a resource, and its missing tests are no failures to learn from.
   */
  'out-of-memory',
  /** Every stable test failed and none on its own (each missing, or its file crashed at load): the module does not load. */
  'no-pass',
  /** Reverting the mutant did not make every FAIL_TO_PASS test pass again. */
  'fix-failed',
  /** The tests run on built output and the build rejected the mutant. */
  'build-failed',
  /** The runner gave no usable report: an infrastructure failure, not a verdict on the mutant. */
  'error',
  /** A combined candidate whose failures are not the union of its parts' (one bug masks another). */
  'interfered',
]);
export type VerdictStatus = z.infer<typeof VerdictStatus>;

export const Verdict = z.object({
  candidateId: z.string(),
  status: VerdictStatus,
  failToPass: z.array(z.string()),
  passToPass: z.array(z.string()),
  durationMs: z.number(),
  /** Of durationMs, the time the tests themselves took as their runner reported it; the rest is overhead. */
  testsMs: z.number().optional(),
  detail: z.string().optional(),
  validatedAt: z.string(),
});
export type Verdict = z.infer<typeof Verdict>;

/** A test that did not pass under a candidate, with what the runner said. */
export const FailedTest = z.object({
  candidateId: z.string(),
  testId: z.string(),
  file: z.string(),
  titlePath: z.array(z.string()),
  status: TestStatus.or(z.literal('missing')),
  failure: Failure.optional(),
});
export type FailedTest = z.infer<typeof FailedTest>;

/**
 * A statement's repro: `executed`, it failed on the buggy code as the statement says and passed
 * on the fixed code, and the statement shows it; else the statement shows none, because the test
 * had no code to cut (`none`), its assertions have no form Node runs alone (`unrunnable`), or it
 * ran otherwise (`cut`).
 */
export const ReproOutcome = z.object({
  status: z.enum(['executed', 'cut', 'unrunnable', 'none']),
  reason: z.string().optional(),
  /** How an executed repro runs: a script with Node alone, or a test file of the repository's runner (when no script could show the bug). */
  form: z.enum(['script', 'test-file']).optional(),
});
export type ReproOutcome = z.infer<typeof ReproOutcome>;

export const Issue = z.object({
  candidateId: z.string(),
  status: z.enum(['written', 'rejected']),
  title: z.string(),
  body: z.string(),
  /** Why a statement was rejected (it would leak the fix, or there was nothing to write from). */
  reason: z.string().optional(),
  /** Who wrote it: `template:<style>` or `llm:<model>` (records from before writers were named: `template`). */
  writer: z.string().default('template'),
  /** Why the language model's statement was not used, when the template wrote it instead. */
  llmFallback: z.string().optional(),
  /** The language model asked, when one was configured (whether it wrote the statement or not). */
  llm: LlmSettings.optional(),
  /** The task's difficulty, on every written statement. */
  difficulty: Difficulty.optional(),
  /** Whether the statement's repro was run on the buggy and the fixed code (records from before repros ran have none). */
  repro: ReproOutcome.optional(),
});
export type Issue = z.infer<typeof Issue>;

export const ExportRecord = z.object({
  dataset: z.string(),
  version: z.string(),
  path: z.string(),
  instances: z.number().int(),
  createdAt: z.string(),
});
export type ExportRecord = z.infer<typeof ExportRecord>;

export const BugSource = z.enum(['operators', 'history']);
export type BugSource = z.infer<typeof BugSource>;

/** Options that shape the candidates; a run keeps the ones it started with. */
export const MutationSettings = z.object({
  seed: z.number().int(),
  /** Operator names; empty means all. */
  operators: z.array(z.string()),
  /** Caps on the candidates sent to validation; null means no cap. */
  maxCandidates: z.number().int().positive().nullable(),
  maxPerOperator: z.number().int().positive().nullable(),
  maxPerUnit: z.number().int().positive().nullable(),
  /** Units below this cyclomatic complexity or above this many lines are not mutated. */
  minComplexity: z.number().int().positive(),
  maxUnitLines: z.number().int().positive(),
  /** Chance that each site of a unit joins its multi-site candidate; 0 makes none. */
  multiSite: z.number().min(0).max(1),
  /** Drop mutants the TypeScript compiler rejects (TypeScript repositories only). */
  typeCheck: z.boolean(),
  /** Where bugs come from: mutation operators, reverted commits of the repository's history. */
  sources: z.array(BugSource).min(1),
  /** Commits of the first-parent history walked back from the base commit, and the largest source change reverted. */
  historyDepth: z.number().int().positive(),
  historyMaxLines: z.number().int().positive(),
});
export type MutationSettings = z.infer<typeof MutationSettings>;

/** How far one operator's mutants got before validation, counted by the mutate stage. */
export const OperatorFunnel = z.object({
  /** The generator, and its strategy (the operator's name, `multi-site`, `revert`). */
  generator: z.string(),
  operator: z.string(),
  family: z.string(),
  /** Edits the operator proposed. */
  sites: z.number().int(),
  /** Of those, mutants that parse and differ from every other. */
  parseValid: z.number().int(),
  /** Of those, how many the sampler looked at, and of those how many the type checker passed. */
  typeChecked: z.number().int(),
  typeValid: z.number().int(),
  /** Sent to validation. */
  candidates: z.number().int(),
});
export type OperatorFunnel = z.infer<typeof OperatorFunnel>;

/** How far the history generator got through the commits before its reverts became proposals. */
export const HistoryFunnel = z.object({
  /** First-parent commits looked at, merges included. */
  walked: z.number().int(),
  merges: z.number().int(),
  /** Commits that change a source file (as mutate's eligibility defines it). */
  withSourceChange: z.number().int(),
  /** Of those, commits that changed a file at a path it has left since, followed to the base commit (0 in runs before). */
  renamed: z.number().int().default(0),
  /** Of those, source changes over the line bound, and those that only reformat. */
  tooLarge: z.number().int(),
  formattingOnly: z.number().int(),
  /** Source changes that reverse-apply to the base commit's tree exactly. */
  applying: z.number().int(),
  /** Why the history gave nothing at all (no repository, a shallow clone), in one sentence; null when it was walked. */
  unavailable: z.string().nullable(),
});
export type HistoryFunnel = z.infer<typeof HistoryFunnel>;

/** A walk that has counted nothing yet. */
export const emptyHistoryFunnel = (): HistoryFunnel => ({
  walked: 0,
  merges: 0,
  withSourceChange: 0,
  renamed: 0,
  tooLarge: 0,
  formattingOnly: 0,
  applying: 0,
  unavailable: null,
});
