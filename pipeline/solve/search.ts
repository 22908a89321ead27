import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { applyEdit } from '../../mutators/edits.js';
import { mutantsOf, type Mutant } from '../../mutators/generate.js';
import { parseSource } from '../../mutators/parse.js';
import { OPERATORS } from '../../mutators/registry.js';
import type { SourceFile } from '../../mutators/types.js';
import { mayHaveRun, suspectsOf, type Blocks, type Executed, type Suspect } from './localize.js';
import { git } from '../common/git.js';
import { testIdsOf, type Instance } from '../dataset/instance.js';
import { hiddenTestFiles } from '../dataset/task-tree.js';
import type { RepoProfile } from '../repo/profile.js';
import { runSuites, suitesOf } from '../runners/suites.js';
import { testFileOf } from '../runners/test-ids.js';
import type { NamedTest, TestResult } from '../runners/types.js';
import { LocalSandbox } from '../sandbox/local.js';
import type { NodeRuntime } from '../sandbox/node-runtime.js';
import type { Sandbox } from '../sandbox/types.js';
import { reproInStatement } from '../statements/render.js';
import type { CoverageMap } from '../store/records.js';
import { learnCoverage } from '../validation/coverage.js';
import { singleFileBuild, type SingleFileBuild } from '../validation/incremental-build.js';
import {
  buildPackage,
  failedAgain,
  linkPackage,
  MISSING_MODULE,
  packageBuildScript,
  REPRO_DIR,
  REPRO_TIMEOUT_MS,
  reproFileOf,
} from '../validation/repro-check.js';
import { coveringTestFiles } from '../validation/test-selection.js';

/** The name the search's predictions go under, as a model's would. */
export const SEARCH_MODEL = 'swesynth-search';

const count = z.number().int().min(0);

/** What the search did for one task: the edit that fixed it, or why there is none. */
export const SearchOutcome = z.object({
  instance_id: z.string(),
  /**
   * `found`: an edit made the failing check pass with the visible tests still passing; `not-found`:
   * none within the budget; `no-oracle`: the task showed no failing check to work from (no repro
   * that fails, no visible test that fails); `error`: the task's code did not build.
   */
  status: z.enum(['found', 'not-found', 'no-oracle', 'error']),
  /** What told a fix from a non-fix: the statement's repro, or the visible tests that fail. */
  oracle: z.enum(['repro', 'visible-tests']).nullable(),
  /** Edits tried; for a found fix, the edits it took, itself included. */
  edits: count,
  /** Edits of the suspects not tried because the check never ran their code (they cannot change its outcome). */
  skipped: count.default(0),
  /** Functions the failing check executed, ranked. */
  suspects: count,
  /** The found fix's function, its rank among the suspects (1 first), its operator and its patch. */
  fix: z
    .object({ file: z.string(), function: z.string(), rank: z.number().int().min(1), operator: z.string(), patch: z.string() })
    .nullable(),
  durationMs: count,
  detail: z.string().optional(),
});
export type SearchOutcome = z.infer<typeof SearchOutcome>;

/** What the search knows of a repository, the same for each of its tasks. */
export interface RepoKnowledge {
  profile: RepoProfile;
  node: NodeRuntime | null;
  /** The name its package is imported by, which a statement's repro uses; null without one. */
  packageName: string | null;
  sourceFiles: string[];
  /** Every test file of the repository; a task hides some of them. */
  testFiles: string[];
  /**
   * Which functions each test file executes, learned once on the repository's clean code: the
   * visible test files' share stands for their runs on each task's code, which differs from it in one bug.
   */
  coverage: CoverageMap;
  setAside: NamedTest[];
}

/** A failing check the search works from: what it executed, and whether a changed tree passes it. */
interface Oracle {
  kind: 'repro' | 'visible-tests';
  failing: Executed[];
  failingFiles: Set<string>;
  /** Per source file the check loaded as it is, the ranges V8 counted in it; a file built into another has none. */
  blocks: Record<string, Blocks>;
  /** The package's own build, which the repro needs after every change; null when the repro runs without it. */
  packageBuild: { exitCode: number | null } | null;
  passes(): Promise<boolean>;
}

/** The runs after each edit go through the runner's warm server, or without its parent process, where it has one, as validation's do. */
const EACH_EDIT = { warm: true, direct: true } as const;

const COVERAGE_DIR = '.swesynth-coverage-search';
const SUMMARY_FILE = '.swesynth-coverage-search.json';

/** A run's time limit: the check's own time on the task's code, with the profile's margin. */
const limitOf = (profile: RepoProfile, durationMs: number, most: number) =>
  Math.min(most, Math.round(profile.timeouts.minimumMs + profile.timeouts.factor * durationMs));

/** Runs a command under V8 coverage and says which functions, and which blocks, it executed. */
async function withCoverage<T extends { exitCode: number | null }>(
  sandbox: Sandbox,
  run: (env: Record<string, string>) => Promise<T>,
): Promise<{ result: T; executed: Executed; blocks: Record<string, Blocks> }> {
  const result = await run({ NODE_V8_COVERAGE: `${sandbox.root}/${COVERAGE_DIR}` });
  const summarized = await sandbox.exec(
    {
      file: sandbox.tools.node,
      args: [sandbox.tools.runnerFile('coverage-summary.mjs'), COVERAGE_DIR, sandbox.root, SUMMARY_FILE, 'blocks'],
    },
    { timeoutMs: 60_000 },
  );
  const loaded: Record<string, { executed: Record<string, number>; blocks: Blocks }> =
    summarized.exitCode === 0 ? JSON.parse(await sandbox.readFile(SUMMARY_FILE)) : {};
  await sandbox.exec(`rm -rf '${COVERAGE_DIR}' '${SUMMARY_FILE}'`, { timeoutMs: 60_000 });
  const entries = Object.entries(loaded);
  return {
    result,
    executed: Object.fromEntries(entries.map(([path, entry]) => [path, entry.executed])),
    blocks: Object.fromEntries(entries.map(([path, entry]) => [path, entry.blocks])),
  };
}

/** Whether a run loaded files of the package that git does not track (its build's output), besides the repro itself. */
async function loadsBuiltOutput(tree: string, loaded: string[]): Promise<boolean> {
  const files = loaded.filter((file) => !file.startsWith(`${REPRO_DIR}/`));
  if (files.length === 0) return false;
  const tracked = new Set((await git(tree, ['ls-files', '--', ...files])).split('\n'));
  return files.some((file) => !tracked.has(file));
}

/** The statement's repro as the oracle, when it fails on the task's code as a reader runs it. */
async function reproOracle(instance: Instance, sandbox: Sandbox, repo: RepoKnowledge): Promise<Oracle | null> {
  const script = reproInStatement(instance.problem_statement);
  if (script?.testFile) {
    // A test for the suite is run as the visible tests are, from where the statement says to save it.
    await sandbox.writeFile(script.testFile, script.code);
    const oracle = await visibleTestsOracle(sandbox, repo, [script.testFile]);
    return oracle && { ...oracle, kind: 'repro', failingFiles: new Set() };
  }
  if (!script || !repo.packageName || (await linkPackage(sandbox, repo.packageName))) return null;
  const file = reproFileOf(script);
  await sandbox.writeFile(file, script.code);
  const runOnce = (env: Record<string, string> = {}, timeoutMs = REPRO_TIMEOUT_MS) =>
    sandbox.exec({ file: sandbox.tools.node, args: [file], env }, { timeoutMs });
  let first = await withCoverage(sandbox, runOnce);
  let packageBuild: Oracle['packageBuild'] = null;
  const missing = first.result.exitCode !== 0 && MISSING_MODULE.test(first.result.outputTail);
  // Built output a reused tree kept from another task's code is built again from this one's.
  if (missing || (await loadsBuiltOutput(sandbox.root, Object.keys(first.executed)))) {
    const built = await buildPackage(sandbox);
    if (!built || built.timedOut) return null;
    packageBuild = { exitCode: built.exitCode };
    first = await withCoverage(sandbox, runOnce);
  }
  // A repro that passes, or that cannot even find the package, shows nothing to fix.
  if (first.result.timedOut || first.result.exitCode === 0 || MISSING_MODULE.test(first.result.outputTail)) return null;
  const timeoutMs = limitOf(repo.profile, first.result.durationMs, REPRO_TIMEOUT_MS);
  return {
    kind: 'repro',
    failing: [first.executed],
    failingFiles: new Set(),
    blocks: first.blocks,
    packageBuild,
    passes: async () => (await runOnce({}, timeoutMs)).exitCode === 0,
  };
}

const failingIds = (results: TestResult[]): Set<string> =>
  new Set(results.filter((test) => test.status === 'fail' || test.status === 'error').map((test) => test.id));

/** The visible tests that fail on the task's code as the oracle, with what each failing file executes. */
async function visibleTestsOracle(sandbox: Sandbox, repo: RepoKnowledge, visible: string[]): Promise<Oracle | null> {
  const suites = suitesOf(repo.profile);
  const slowest = Math.max(0, ...repo.coverage.testFiles.map((test) => test.durationMs));
  const request = { testFiles: visible, skip: repo.setAside, timeoutMs: limitOf(repo.profile, slowest * visible.length, 30 * 60_000) };
  const run = await runSuites(sandbox, suites, { ...request, only: visible });
  if (run.kind !== 'results') return null;
  const failing = failingIds(run.results);
  if (failing.size === 0) return null;
  const failingFiles = new Set(run.results.filter((test) => failing.has(test.id)).map((test) => test.file));
  const only = [...failingFiles].sort();
  const coverage = await learnCoverage({
    suites,
    ...request,
    only,
    env: repo.profile.env,
    concurrency: 1,
    open: async () => sandbox,
    close: async () => {},
  });
  const timeoutMs = limitOf(repo.profile, run.durationMs, 30 * 60_000);
  return {
    kind: 'visible-tests',
    failing: coverage.testFiles.filter((test) => test.measured).map((test) => test.executed),
    failingFiles,
    blocks: {},
    packageBuild: null,
    async passes() {
      const again = await runSuites(sandbox, suites, { ...request, only, timeoutMs, ...EACH_EDIT });
      if (again.kind !== 'results') return false;
      const passing = new Set(again.results.filter((test) => test.status === 'pass').map((test) => test.id));
      return [...failing].every((id) => passing.has(id));
    },
  };
}

/**
 * Looks for the fix of one task as an agent gets it, in its task tree `tree` (the bug in, the
 * hidden tests out): from the statement's repro when it fails, else from the visible tests that
 * fail, it ranks the functions that check executes by Ochiai against the visible test files that
 * pass, and tries the edits swesynth's operators make in them, most suspicious first. The first
 * edit that makes the check pass, with every visible test of its function passing, is
 * the fix; the search gives up after `budget` edits. The tree is left as it was found.
 */
export async function searchFix(instance: Instance, tree: string, repo: RepoKnowledge, budget: number): Promise<SearchOutcome> {
  const started = performance.now();
  const outcome = (fields: Pick<SearchOutcome, 'status'> & Partial<SearchOutcome>): SearchOutcome => ({
    instance_id: instance.instance_id,
    oracle: null,
    edits: 0,
    skipped: 0,
    suspects: 0,
    fix: null,
    ...fields,
    durationMs: Math.round(performance.now() - started),
  });
  const { profile } = repo;
  const sandbox = LocalSandbox.at(tree, profile.env, repo.node);
  const build = profile.buildBeforeTests ? profile.build : null;
  const fullBuild = async (): Promise<boolean> => {
    if (!build) return true;
    const built = await sandbox.exec(build, { timeoutMs: profile.timeouts.installMs });
    return !built.timedOut && built.exitCode === 0;
  };
  try {
    if (!(await fullBuild())) return outcome({ status: 'error', detail: "the task's code does not build" });
    const hidden = new Set(hiddenTestFiles(instance.test_patch));
    // Files the tests glob finds that hold no test (a module of cases the tests import) are no check:
    // alone, they run nothing. Which visible files hold tests an agent sees by reading them.
    const holdTests = new Set(testIdsOf(instance.PASS_TO_PASS).map(testFileOf));
    const visible = repo.testFiles.filter((file) => !hidden.has(file) && holdTests.has(file));
    const oracle = (await reproOracle(instance, sandbox, repo)) ?? (await visibleTestsOracle(sandbox, repo, visible));
    if (!oracle) return outcome({ status: 'no-oracle', detail: 'no repro in the statement fails, and no visible test fails' });

    const passing = repo.coverage.testFiles
      .filter((test) => test.measured && !hidden.has(test.file) && !oracle.failingFiles.has(test.file))
      .map((test) => test.executed);
    const parsed = new Map<string, SourceFile | null>();
    const parsedOf = (file: string): SourceFile | null => {
      if (!parsed.has(file)) {
        try {
          parsed.set(file, parseSource(file, readFileSync(join(tree, file), 'utf8')));
        } catch {
          parsed.set(file, null);
        }
      }
      return parsed.get(file)!;
    };
    const suspects = suspectsOf(oracle.failing, passing, repo.sourceFiles, parsedOf);
    const testBuilds: Build[] = build ? [{ single: singleFileBuild(tree, build, null), whole: fullBuild }] : [];
    const oracleBuilds = [...testBuilds];
    const packageBuild = oracle.packageBuild;
    const packageScript = packageBuild && (await packageBuildScript(sandbox));
    if (packageBuild && packageScript)
      oracleBuilds.push({
        single: singleFileBuild(tree, packageScript, null),
        whole: async () => !failedAgain(await buildPackage(sandbox), packageBuild),
      });
    const treeEdits = new TreeEdits(sandbox, oracleBuilds);
    const visibleTests = new VisibleTests(sandbox, repo, visible);
    const fixes = async (covering: string[]): Promise<boolean> => {
      if (!(await treeEdits.ready(testBuilds))) return false;
      if (treeEdits.isReady(oracleBuilds)) return (await oracle.passes()) && (await visibleTests.pass(covering));
      // The package's whole build is the dearest step: an edit a visible test rejects goes without it.
      if (!(await visibleTests.pass(covering))) return false;
      if (!(await treeEdits.ready(oracleBuilds)) || !(await oracle.passes())) return false;
      // The visible tests may load the package's build, which changed after they ran.
      return visibleTests.pass(covering);
    };

    const { plans, skipped } = planEdits(suspects, parsedOf, oracle.blocks);
    let edits = 0;
    for (const [index, { suspect, file, mutants }] of plans.entries()) {
      const covering = visibleTests.covering(suspect);
      for (const mutant of mutants) {
        if (edits >= budget) return outcome({ status: 'not-found', oracle: oracle.kind, edits, skipped, suspects: suspects.length });
        edits++;
        const patch = await treeEdits.with(suspect.file, file.text, applyEdit(file.text, mutant.edit), async () =>
          (await fixes(covering)) ? git(tree, ['diff', '--no-color', '--', suspect.file]) : null,
        );
        if (patch === null) continue;
        return outcome({
          status: 'found',
          oracle: oracle.kind,
          edits,
          skipped,
          suspects: suspects.length,
          fix: {
            file: suspect.file,
            function: suspect.unit.name,
            rank: index + 1,
            operator: mutant.operator.name,
            patch: `${patch}\n`,
          },
        });
      }
    }
    return outcome({ status: 'not-found', oracle: oracle.kind, edits, skipped, suspects: suspects.length });
  } finally {
    const reproTest = reproInStatement(instance.problem_statement)?.testFile;
    if (reproTest) await rm(join(tree, reproTest), { force: true });
    await sandbox.dispose();
  }
}

/**
 * The edits to try, per suspect function: the operators' edits in it, less those in code the check
 * never ran (they cannot change its outcome). Most suspicious first; among equally suspicious
 * functions, the one with the fewest edits first, so that a budget reaches as many as it can.
 */
function planEdits(suspects: Suspect[], parsedOf: (file: string) => SourceFile | null, blocks: Record<string, Blocks>) {
  const mutantsOfFile = new Map<string, Mutant[]>();
  let skipped = 0;
  const plans = suspects.map((suspect) => {
    const file = parsedOf(suspect.file)!;
    if (!mutantsOfFile.has(suspect.file)) mutantsOfFile.set(suspect.file, mutantsOf(file, OPERATORS));
    const ran = blocks[suspect.file];
    // Node reads a file without its byte order mark, so V8's offsets start one later.
    const shift = file.text.startsWith('\uFEFF') ? 1 : 0;
    const inUnit = mutantsOfFile.get(suspect.file)!.filter((mutant) => sameUnit(mutant.unit, suspect));
    const mutants = ran ? inUnit.filter((mutant) => mayHaveRun(ran, mutant.edit.start - shift, mutant.edit.end - shift)) : inUnit;
    skipped += inUnit.length - mutants.length;
    return { suspect, file, mutants };
  });
  // A stable sort: equal scores and sizes keep the suspects' order.
  plans.sort((a, b) => b.suspect.score - a.suspect.score || a.mutants.length - b.mutants.length);
  return { plans, skipped };
}

/** A build a changed source file needs before a check: the file alone when that gives what the whole build gives, else the whole build. */
interface Build {
  single: SingleFileBuild | null;
  /** The whole build; false when it fails. */
  whole(): Promise<boolean>;
}

/**
 * Edits of the task tree's source, each undone after its check. A build that reproduces a file
 * alone follows every write; a whole build runs only when a check asks for it (`ready`), so an
 * edit rejected before, and the undoing of an edit, cost none.
 */
class TreeEdits {
  /** Per build and file, whether building the file alone gives what the build gives; asked with the tree as the task left it. */
  private readonly alone = new Map<Build, Map<string, boolean>>();
  /** Builds whose output lags the source: a whole build not run since the last write. */
  private readonly stale = new Set<Build>();

  constructor(
    private readonly sandbox: Sandbox,
    private readonly builds: Build[],
  ) {
    for (const build of builds) this.alone.set(build, new Map());
  }

  /** Runs `check` with `file` holding `text`, and puts back `clean`. */
  async with<T>(file: string, clean: string, text: string, check: () => Promise<T | null>): Promise<T | null> {
    for (const build of this.builds) {
      const alone = this.alone.get(build)!;
      // The comparison needs the output of the clean tree.
      if (!alone.has(file))
        alone.set(file, build.single !== null && (await this.ready([build])) && (await build.single.reproduces(this.sandbox, file, clean)));
    }
    try {
      await this.write(file, text);
      return await check();
    } finally {
      await this.write(file, clean);
    }
  }

  isReady(builds: Build[]): boolean {
    return builds.every((build) => !this.stale.has(build));
  }

  /** Brings these builds' output up to date with the source, in order; false when the source does not build. */
  async ready(builds: Build[]): Promise<boolean> {
    for (const build of builds) {
      if (!this.stale.has(build)) continue;
      if (!(await build.whole())) return false;
      this.stale.delete(build);
    }
    return true;
  }

  private async write(file: string, text: string): Promise<void> {
    await this.sandbox.writeFile(file, text);
    for (const build of this.builds) {
      if (this.alone.get(build)!.get(file)) await build.single!.write(this.sandbox, file, text);
      else this.stale.add(build);
    }
  }
}

/**
 * The visible test files that execute a function. A true fix passes every one of them (their tests
 * were stable before the bug): an edit is rejected at the first file that fails, fastest first.
 */
class VisibleTests {
  private readonly visible: Set<string>;
  private readonly durations: Map<string, number>;

  constructor(
    private readonly sandbox: Sandbox,
    private readonly repo: RepoKnowledge,
    visible: string[],
  ) {
    this.visible = new Set(visible);
    this.durations = new Map(repo.coverage.testFiles.map((test) => [test.file, test.durationMs]));
  }

  /** The visible files that execute the suspect's function, fastest first. */
  covering(suspect: Suspect): string[] {
    const took = (file: string) => this.durations.get(file) ?? Number.POSITIVE_INFINITY;
    return coveringTestFiles(this.repo.coverage, [{ file: suspect.file, unit: suspect.unit.name }])
      .filter((file) => this.visible.has(file))
      .sort((a, b) => took(a) - took(b) || a.localeCompare(b));
  }

  /** Whether every test of these files passes now, each file run on its own until one does not. */
  async pass(files: string[]): Promise<boolean> {
    for (const file of files) {
      const run = await runSuites(this.sandbox, suitesOf(this.repo.profile), {
        testFiles: [...this.visible],
        only: [file],
        skip: this.repo.setAside,
        timeoutMs: limitOf(this.repo.profile, this.durations.get(file) ?? 0, 30 * 60_000),
        ...EACH_EDIT,
      });
      if (run.kind !== 'results' || failingIds(run.results).size > 0) return false;
    }
    return true;
  }
}

const sameUnit = (unit: Suspect['unit'], suspect: Suspect) => unit.name === suspect.unit.name && unit.startLine === suspect.unit.startLine;
