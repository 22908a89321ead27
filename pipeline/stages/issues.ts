import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import PQueue from 'p-queue';
import { mutatedFiles } from '../store/candidates.js';
import type { StageContext, StageResult } from './context.js';
import { llmSettingsOf, writeWithLlm, type LlmConfig } from '../statements/llm-writer.js';
import { styleFor, type StatementInput } from '../statements/input.js';
import { commitPhrases, leakIn } from '../statements/leak-check.js';
import { caseTexts, reproFor, type Repro, type Script } from '../statements/repro.js';
import { dialectOf, type AssertDialect } from '../statements/node-assert.js';
import { symptomOf, type Symptom } from '../statements/symptom.js';
import { checkRepro, type ReproRun } from '../validation/repro-check.js';
import { suitesOf } from '../runners/suites.js';
import { writeStatement } from '../statements/statement.js';
import { reproInStatement } from '../statements/render.js';
import { failuresToState, namesCall, subjectOf } from '../statements/symptom.js';
import type { Candidate, FailedTest, Issue, ReproOutcome } from '../store/records.js';
import { difficultyOf } from '../dataset/difficulty.js';
import { Progress } from '../common/progress.js';
import { withJudge } from './validate.js';

function linesAround(text: string, start: number, end: number): string[] {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to === -1 ? text.length : to).split('\n');
}

/** Whether a title is a function's name in words (`max satisfying`) that the test's code calls by that name (`maxSatisfying(`). */
function namesCalledFunction(title: string, testCode: string): boolean {
  const words = title.trim().split(/\s+/);
  if (words.length < 2 || !words.every((word) => /^[A-Za-z_$][\w$]*$/.test(word))) return false;
  const name = words.map((word, at) => (at === 0 ? word : `${word[0]!.toUpperCase()}${word.slice(1)}`)).join('');
  return new RegExp(`(?<![\\w$])${name.replace(/\$/g, '\\$')}\\(`).test(testCode);
}

/** What a statement must never show: the tests' titles and files, the changed lines before and after, and the reverted commit's message. */
function forbiddenFor(candidate: Candidate, failed: FailedTest[], read: (file: string) => string): string[] {
  const mutated = mutatedFiles(candidate.sites, read);
  const changedLines = candidate.sites.flatMap((site) => {
    // Where the site's replacement sits in the mutated text: shifted by the edits before it.
    const shift = candidate.sites
      .filter((other) => other.file === site.file && other.start < site.start)
      .reduce((sum, other) => sum + other.replacement.length - (other.end - other.start), 0);
    return [
      ...linesAround(read(site.file), site.start, site.end),
      ...linesAround(mutated.get(site.file)!, site.start + shift, site.start + shift + site.replacement.length),
    ];
  });
  // A title that is only a name (`compareBuild`, or `max satisfying` for the `maxSatisfying` its test calls)
  // names the function under test, which a bug report names too; one that is a case's input, the value a
  // report shows.
  const cases = new Map<string, Set<string>>();
  const casesOf = (file: string) => cases.get(file) ?? cases.set(file, caseTexts(file, read(file))).get(file)!;
  const titles = failed
    .filter((test) => {
      const title = test.titlePath.at(-1) ?? '';
      return !/^[\w$.#]+$/.test(title) && !namesCalledFunction(title, read(test.file)) && !casesOf(test.file).has(title);
    })
    .map((test) => test.titlePath.at(-1) ?? '');
  const origin = candidate.provenance.origin;
  const commit = origin?.kind === 'commit' ? commitPhrases(origin) : [];
  return [...titles, ...failed.flatMap((test) => [test.file, basename(test.file)]), ...changedLines, ...commit];
}

/** The package as its users know it. */
export interface PackageInfo {
  name: string;
  version: string;
  /** Repository-relative entry files: package.json main, module and exports ".". */
  entryPoints: string[];
}

type ExportsField = string | ExportsField[] | { [key: string]: ExportsField } | null;

/** The files an exports field names, through conditions (`import`, `require`, `default`, ...) and fallbacks. */
function exportedFiles(exports: ExportsField | undefined): string[] {
  if (typeof exports === 'string') return [exports];
  if (Array.isArray(exports)) return exports.flatMap(exportedFiles);
  return exports ? Object.values(exports).flatMap(exportedFiles) : [];
}

/** Name and entry files from the repository's package.json; its name falls back to the repository's, its entry to Node's default. */
export function packageOf(workspace: string, repo: string, version: string): PackageInfo {
  let manifest: { name?: unknown; main?: unknown; module?: unknown; exports?: ExportsField } = {};
  try {
    manifest = JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8'));
  } catch {
    // No readable package.json: the repository's name and Node's defaults.
  }
  const { exports } = manifest;
  // Subpath exports map "." to the entry; an exports field without subpaths is the entry itself.
  const isSubpathMap =
    typeof exports === 'object' && exports !== null && !Array.isArray(exports) && Object.keys(exports).some((key) => key.startsWith('.'));
  const entries = [manifest.main, manifest.module, ...exportedFiles(isSubpathMap ? exports['.'] : exports)].filter(
    (entry): entry is string => typeof entry === 'string',
  );
  return {
    name: typeof manifest.name === 'string' && manifest.name !== '' ? manifest.name : repo.split('/').at(-1)!,
    version,
    entryPoints: entries.length > 0 ? entries : ['index.js'],
  };
}

export interface StatementSources {
  read(file: string): string | undefined;
  pkg: PackageInfo;
  nodeVersion?: string;
  /** The language model to write with; null: the templates write every statement. */
  llm: LlmConfig | null;
  /** How the repository's tests assert, as Node's assert. */
  dialect: AssertDialect;
  /** Runs a repro on the candidate's buggy and fixed code; without it no repro is shown. */
  runRepro?: (candidate: Candidate, script: Script, symptom: Symptom) => Promise<ReproRun>;
}

/**
 * The repro a statement may show, when it ran on the buggy and fixed code as the statement says:
 * the script that runs with Node alone, or, when that cannot show the bug (the package's build
 * refuses the buggy code, the script cannot be written), the test file of the repository's runner.
 * The outcome says why the script was cut when neither runs.
 */
async function checkedRepro(
  candidate: Candidate,
  test: FailedTest,
  repro: Repro | null,
  sources: StatementSources,
): Promise<{ outcome: ReproOutcome; code: Script | null }> {
  if (!repro || !test.failure) return { outcome: { status: 'none' }, code: null };
  const { runRepro } = sources;
  if (!runRepro) return { outcome: { status: 'cut', reason: 'no sandbox to run it in' }, code: null };
  const symptom = symptomOf(test.failure);
  // The script's outcome says why neither ran.
  let first: ReproOutcome | null = null;
  for (const [form, script] of [
    ['script', repro.script],
    ['test-file', repro.testFile],
  ] as const) {
    if ('unrunnable' in script) {
      first ??= { status: 'unrunnable', reason: script.unrunnable };
      continue;
    }
    const outcome = await runRepro(candidate, script, symptom);
    if (outcome.status === 'executed') return { outcome: { status: 'executed', form }, code: script };
    first ??= outcome;
  }
  return { outcome: first!, code: null };
}

/** Test files a statement may be written from when the first one's repro does not run: each try runs a repro twice. */
const REPRO_TRIES = 3;

/** A failure a statement may be written from, with its repro and how that ran. */
interface StatedFailure {
  test: FailedTest;
  repro: Repro | null;
  outcome: ReproOutcome;
  code: Script | null;
}

/**
 * The failure a statement is written from, with its repro and how that ran: the most informative
 * failure, unless its repro does not run as the statement would say and the best failure of
 * another test file (up to REPRO_TRIES files in all) has one that does, or, when none does, one
 * whose call can be named. A reader is better served by a repro that runs, and a
 * title that names what misbehaves, than by a slightly better symptom.
 */
async function statedFailure(
  candidate: Candidate,
  input: StatementInput,
  sources: StatementSources,
): Promise<{ stated: StatedFailure | null; primary: StatedFailure | null }> {
  let primary: StatedFailure | null = null;
  let named: StatedFailure | null = null;
  for (const test of failuresToState(input.failed).slice(0, REPRO_TRIES)) {
    // Cut once: the check runs it, and the statement is written from it.
    const repro = test.failure ? reproFor(input, test) : null;
    const stated = { test, repro, ...(await checkedRepro(candidate, test, repro, sources)) };
    primary ??= stated;
    if (stated.outcome.status === 'executed') return { stated, primary };
    if (namesCall(subjectOf(repro, test.titlePath))) named ??= stated;
  }
  // Without a repro that runs, a failure whose title can name what misbehaves.
  return { stated: named ?? primary, primary };
}

/**
 * What the repro a model's statement shows did: the checked script shown as it is keeps its outcome;
 * a script the model wrote or changed is run as the template's is, and must fail on the bug as the
 * statement says (`fails` says why not); a statement without a script shows no repro.
 */
async function shownRepro(
  candidate: Candidate,
  body: string,
  checked: Script | null,
  outcome: ReproOutcome,
  failure: NonNullable<FailedTest['failure']>,
  sources: StatementSources,
): Promise<ReproOutcome | { fails: string }> {
  const script = reproInStatement(body);
  if (!script) return { status: 'none', reason: 'the statement shows no script' };
  if (checked && script.code.trim() === checked.code.trim() && script.testFile === checked.testFile) return outcome;
  const run = sources.runRepro
    ? await sources.runRepro(candidate, script, symptomOf(failure))
    : { status: 'cut' as const, reason: 'no sandbox to run it in' };
  return run.status === 'executed' ? run : { fails: `the script its statement shows was cut: ${run.reason}` };
}

/** A candidate's issue: the language model's statement when one is configured and its text gives nothing away, else the template's. */
export async function issueFor(candidate: Candidate, failed: FailedTest[], sources: StatementSources): Promise<Issue> {
  const { pkg, llm } = sources;
  const style = styleFor(candidate.id);
  const input: StatementInput = {
    failed,
    readTest: sources.read,
    forbidden: forbiddenFor(candidate, failed, (file) => sources.read(file) ?? ''),
    packageName: pkg.name,
    entryPoints: pkg.entryPoints,
    packageVersion: pkg.version,
    nodeVersion: sources.nodeVersion,
    style,
    assertDialect: sources.dialect,
  };
  const { stated, primary } = await statedFailure(candidate, input, sources);
  const test = stated?.test ?? null;
  const code = stated?.code ?? null;
  const outcome: ReproOutcome = stated?.outcome ?? { status: 'none' };
  let llmFallback: string | undefined;
  const asked = llm ? { llm: llmSettingsOf(llm) } : {};
  if (llm && test?.failure) {
    try {
      const statement = await writeWithLlm(llm, {
        failure: test.failure,
        repro: code,
        bugPatch: candidate.bugPatch,
        packageName: pkg.name,
        packageVersion: pkg.version,
        style,
      });
      const leak = leakIn(statement, input.forbidden);
      const shown = leak ? null : await shownRepro(candidate, statement.body, code, outcome, test.failure, sources);
      if (shown && !('fails' in shown))
        return { candidateId: candidate.id, status: 'written', ...statement, writer: `llm:${llm.model}`, repro: shown, ...asked };
      llmFallback = leak ? `its statement would reveal "${leak}"` : shown!.fails;
    } catch (error) {
      llmFallback = (error as Error).message;
    }
  }
  let statement = writeStatement(input, () => code, test, stated?.repro ?? null);
  let shown = outcome;
  // Another file's failure may give the test away where the first's does not (its title names the function in words).
  if ('rejected' in statement && primary && primary !== stated) {
    statement = writeStatement(input, () => primary.code, primary.test, primary.repro);
    shown = primary.outcome;
  }
  const by = { candidateId: candidate.id, writer: `template:${style}`, ...(llmFallback ? { llmFallback } : {}), ...asked };
  return 'rejected' in statement
    ? { ...by, status: 'rejected', title: '', body: '', reason: statement.rejected }
    : { ...by, status: 'written', ...statement, repro: shown };
}

/** The Node.js version the tests run on: this process's locally, the base image's tag in docker (`node:20-bookworm`). */
function nodeVersionOf(ctx: StageContext, sandbox: 'local' | 'docker'): string | undefined {
  return sandbox === 'local' ? process.versions.node : /^node:(\d+(?:\.\d+)*)/.exec(ctx.options.docker.baseImage)?.[1];
}

/** Issues: a problem statement for every kept candidate, from its failing assertions. */
export async function issues(ctx: StageContext): Promise<StageResult> {
  const { store, log } = ctx;
  const done = store.stageSummary('issues');
  if (done) return { stage: 'issues', alreadyDone: true, ...done };
  if (!store.stageSummary('validate')) throw new Error('issues needs the verdicts of the validate stage');

  const environment = ctx.store.environment();
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(environment.workspace, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const pkg = packageOf(environment.workspace, environment.repo, environment.repoVersion);
  const sources: StatementSources = {
    read,
    pkg,
    nodeVersion: nodeVersionOf(ctx, environment.sandbox),
    llm: ctx.options.llm,
    dialect: dialectOf(suitesOf(ctx.profile).map((suite) => suite.adapter.vocabulary)),
  };
  if (sources.llm) {
    const { model, endpoint, temperature } = llmSettingsOf(sources.llm);
    log.info(`issues: writing with ${model} at ${endpoint} (temperature ${temperature}), the templates where it fails`);
  }
  const kept = new Set(
    store
      .verdicts()
      .filter((verdict) => verdict.status === 'kept')
      .map((verdict) => verdict.candidateId),
  );
  const written = new Set(store.issues().map((issue) => issue.candidateId));
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
  const coverage = store.getMeta('coverage') ?? null;
  const pending = store.candidates().filter((candidate) => kept.has(candidate.id) && !written.has(candidate.id));
  const progress = new Progress('issues', pending.length, ctx.options.progress);
  if (pending.length > 0)
    // Each repro runs in a sandbox of its own, on the buggy and on the fixed code; the language model answers slowly: several at once.
    await withJudge(ctx, 'issues', async (judge) => {
      const runRepro = (candidate: Candidate, script: Script, symptom: Symptom) => checkRepro(candidate, script, symptom, pkg.name, judge);
      const queue = new PQueue({ concurrency: ctx.options.concurrency });
      await queue.addAll(
        pending.map((candidate) => async () => {
          const issue = await issueFor(candidate, store.failedTests(candidate.id), { ...sources, runRepro });
          if (issue.llmFallback)
            log.warn(`issues: ${candidate.id}: the template wrote the statement instead of the language model: ${issue.llmFallback}`);
          const statement = `${issue.title}\n${issue.body}`;
          store.saveIssue(
            issue.status === 'written'
              ? { ...issue, difficulty: difficultyOf(candidate, verdicts.get(candidate.id)!, statement, coverage) }
              : issue,
          );
          progress.tick(issue.status === 'written' ? (issue.repro?.status ?? 'written') : 'rejected');
        }),
      );
    });
  const all = store.issues();
  const summary = {
    written: all.filter((issue) => issue.status === 'written').length,
    reprosExecuted: all.filter((issue) => issue.repro?.status === 'executed').length,
    reproTestFiles: all.filter((issue) => issue.repro?.form === 'test-file').length,
    rejected: all.filter((issue) => issue.status === 'rejected').length,
    llmFallbacks: all.filter((issue) => issue.llmFallback !== undefined).length,
  };
  store.finishStage('issues', summary);
  const fallbacks = summary.llmFallbacks > 0 ? `; ${summary.llmFallbacks} by the template where the language model failed` : '';
  log.info(
    `issues: ${summary.written} problem statements written (${summary.reprosExecuted} with a repro run on the buggy and the fixed code, ${summary.reproTestFiles} of them as a test for the suite), ${summary.rejected} rejected${fallbacks}`,
  );
  return { stage: 'issues', alreadyDone: false, ...summary };
}
