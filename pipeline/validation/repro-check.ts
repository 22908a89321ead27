import { dirname } from 'node:path';
import { filesOf, mutatedFiles } from '../store/candidates.js';
import type { Candidate } from '../store/records.js';
import type { Script } from '../statements/repro.js';
import { sameSymptom, symptomOf, type Symptom } from '../statements/symptom.js';
import { runSuites } from '../runners/suites.js';
import type { ExecResult, Sandbox } from '../sandbox/types.js';
import type { Judge } from './judge.js';

/** What running a statement's repro showed: it reproduces the report, or why it was cut from the statement. */
export type ReproRun = { status: 'executed' } | { status: 'cut'; reason: string };

/** The repro's folder in the sandbox: the script, and the package under its own name beside it. */
export const REPRO_DIR = '.swesynth-repro';

/** Where a repro script goes in the sandbox, named for its module kind. */
export const reproFileOf = (script: Pick<Script, 'module'>): string => `${REPRO_DIR}/repro.${script.module === 'esm' ? 'mjs' : 'cjs'}`;

/**
 * Makes the package resolve by its name from the repro's folder (and its dependencies from the
 * repository's); says why it could not, or nothing.
 */
export async function linkPackage(sandbox: Sandbox, packageName: string): Promise<string | undefined> {
  const link = `${REPRO_DIR}/node_modules/${packageName}`;
  // A link left from before (a folder reset by git keeps ignored files) is replaced.
  const made = await sandbox.exec(`mkdir -p '${dirname(link)}' && ln -sfn "$PWD" '${link}'`, { timeoutMs: REPRO_TIMEOUT_MS });
  return made.exitCode === 0 ? undefined : `the package could not be linked by its name: ${lastLine(made)}`;
}
/**
 * What a sandbox has for repros, kept while it serves one repro after another: its repro folder
 * links the package by its name; and the package's own build, when its entry is not built in the
 * repository (the tests load the source) and a repro needs it as its users get it.
 */
interface ReproSetup {
  linked: boolean;
  buildTried: boolean;
  /**
   * The package's build ran for repros here, with this exit code on the clean code (some builds end
   * non-zero after writing everything), and whether what it wrote was kept to be put back.
   */
  packageBuild: { exitCode: number | null; kept: boolean } | null;
}
const setups = new WeakMap<Sandbox, ReproSetup>();

/** How Node says a module is missing: here, the package's entry, which its build writes. */
export const MISSING_MODULE = /ERR_MODULE_NOT_FOUND|Cannot find (?:module|package)/;
/** The package's build (`npm run build`) may take this long. */
const PACKAGE_BUILD_TIMEOUT_MS = 300_000;

/** The package's own build script (its `build` in package.json), or null when it has none. */
export async function packageBuildScript(sandbox: Sandbox): Promise<string | null> {
  try {
    const build: unknown = JSON.parse(await sandbox.readFile('package.json')).scripts?.build;
    return typeof build === 'string' ? build : null;
  } catch {
    return null;
  }
}

/** Runs the package's own build script, as a publisher does; null when it has none. */
export async function buildPackage(sandbox: Sandbox): Promise<ExecResult | null> {
  if ((await packageBuildScript(sandbox)) === null) return null;
  return sandbox.exec('npm run build', { timeoutMs: PACKAGE_BUILD_TIMEOUT_MS });
}

/** What the build of the clean code wrote, as an archive, and the mark of the time before it ran. */
const CLEAN_BUILD = `${REPRO_DIR}/clean-build.tar`;
const BEFORE_BUILD = `${REPRO_DIR}/before-build`;

/**
 * Builds the clean code, keeping every file the build wrote (changed since the mark, by ctime, which
 * a copy that keeps times still sets) so that after a change the clean build comes back by
 * unpacking it instead of building again: half the builds of a repro check.
 */
async function buildKeepingOutput(sandbox: Sandbox): Promise<{ exitCode: number | null; kept: boolean } | null> {
  await sandbox.exec(`mkdir -p ${REPRO_DIR} && touch ${BEFORE_BUILD}`, { timeoutMs: REPRO_TIMEOUT_MS });
  const build = await buildPackage(sandbox);
  if (!build || build.timedOut) return null;
  const written = `${REPRO_DIR}/written`;
  const kept = await sandbox.exec(
    `find . \\( -name node_modules -o -name .git -o -path ./${REPRO_DIR} \\) -prune -o -type f -cnewer ${BEFORE_BUILD} -print > ${written}` +
      ` && test -s ${written} && tar -cf ${CLEAN_BUILD} -T ${written}`,
    { timeoutMs: REPRO_TIMEOUT_MS },
  );
  return { exitCode: build.exitCode, kept: kept.exitCode === 0 };
}

/** Puts the clean build back after a change: its kept files, else a build; says whether that failed. */
async function restoreCleanBuild(sandbox: Sandbox, clean: { exitCode: number | null; kept: boolean }): Promise<boolean> {
  if (clean.kept && (await sandbox.exec(`tar -xf ${CLEAN_BUILD}`, { timeoutMs: REPRO_TIMEOUT_MS })).exitCode === 0) return false;
  return failedAgain(await buildPackage(sandbox), clean);
}

/** Whether a build of the changed code failed where the build of the clean code did not. */
export const failedAgain = (result: ExecResult | null, clean: { exitCode: number | null }): boolean =>
  !result || result.timedOut || (result.exitCode !== 0 && result.exitCode !== clean.exitCode);

/** A repro is one call and its check; one that runs longer than this is not the small case a report shows. */
export const REPRO_TIMEOUT_MS = 30_000;

export const lastLine = (result: ExecResult): string =>
  result.outputTail
    .trim()
    .split('\n')
    .find((line) => /Error|assert/i.test(line))
    ?.trim()
    .slice(0, 200) ?? `exit code ${result.exitCode}`;

/** Whether a run's output shows the symptom the statement reports: a failed assertion, or the error the code threw. */
function shows(result: ExecResult, symptom: Symptom): boolean {
  if (symptom.kind === 'error' && symptom.thrown) {
    // Node prints an error as `Name: message`, and an assertion that got one quotes its message alone.
    const error = symptom.error.split('\n')[0]!;
    const message = error.replace(/^[\w$.]+: /, '');
    return result.outputTail.includes(error.slice(0, 100)) || result.outputTail.includes(message.slice(0, 100));
  }
  return result.outputTail.includes('AssertionError');
}

/** One run of a repro: whether it ended, passed, and showed the reported symptom, and its telling line. */
interface ReproResult {
  timedOut: boolean;
  passed: boolean;
  shows(symptom: Symptom): boolean;
  says: string;
}

/**
 * How a repro runs in a sandbox. `fixed` runs it first, on the clean code, readying what it needs;
 * `afterChange` redoes what a change of the code needs beyond the tests' own build (the package's
 * build) and says whether that failed, as `afterRestore` does once the code is clean again;
 * `dispose` takes away what the repro left.
 */
interface ReproWay {
  fixed(): Promise<ReproResult | { cut: string }>;
  run(): Promise<ReproResult>;
  afterChange(): Promise<boolean>;
  afterRestore(): Promise<boolean>;
  dispose(): Promise<void>;
}

/** A Node script beside the package linked by its name, built as its users get it when its entry is not in the repository. */
function asScript(sandbox: Sandbox, script: Script, packageName: string): ReproWay {
  const file = reproFileOf(script);
  const setup: ReproSetup = setups.get(sandbox) ?? { linked: false, buildTried: false, packageBuild: null };
  setups.set(sandbox, setup);
  const exec = () => sandbox.exec({ file: sandbox.tools.node, args: [file] }, { timeoutMs: REPRO_TIMEOUT_MS });
  const resultOf = (result: ExecResult): ReproResult => ({
    timedOut: result.timedOut,
    passed: result.exitCode === 0,
    shows: (symptom) => shows(result, symptom),
    says: lastLine(result),
  });
  const run = async () => resultOf(await exec());
  return {
    async fixed() {
      if (!setup.linked) {
        const failed = await linkPackage(sandbox, packageName);
        if (failed) return { cut: failed };
        setup.linked = true;
      }
      await sandbox.writeFile(file, script.code);
      const first = await exec();
      if (first.exitCode === 0 || setup.buildTried || !MISSING_MODULE.test(first.outputTail)) return resultOf(first);
      setup.buildTried = true;
      setup.packageBuild = await buildKeepingOutput(sandbox);
      return run();
    },
    run,
    afterChange: async () => setup.packageBuild !== null && failedAgain(await buildPackage(sandbox), setup.packageBuild),
    afterRestore: async () => setup.packageBuild !== null && restoreCleanBuild(sandbox, setup.packageBuild),
    dispose: async () => undefined,
  };
}

/** A test file of the repository's own runner, saved where the statement says and run with the repository's tests. */
function asTestFile(sandbox: Sandbox, script: Script & { testFile: string }, judge: Pick<Judge, 'suites' | 'request'>): ReproWay {
  const file = script.testFile;
  const run = async (): Promise<ReproResult> => {
    const request = { ...judge.request, testFiles: [...judge.request.testFiles, file], only: [file], timeoutMs: REPRO_TIMEOUT_MS };
    const outcome = await runSuites(sandbox, judge.suites, request);
    if (outcome.kind !== 'results')
      return {
        timedOut: outcome.kind === 'timeout',
        passed: false,
        shows: () => false,
        says: outcome.kind === 'timeout' ? 'timed out' : outcome.reason,
      };
    const results = outcome.results.filter((result) => result.file === file);
    const failed = results.filter((result) => result.status !== 'pass' && result.status !== 'skip');
    return {
      timedOut: results.some((result) => result.status === 'timeout'),
      passed: results.length > 0 && failed.length === 0,
      // The same assertion on the same code: the runner reports the same values, or the same error.
      shows: (symptom) => failed.some((result) => result.failure && sameSymptom(symptomOf(result.failure), symptom)),
      says:
        results.length === 0 ? 'the runner ran no test in it' : (failed[0]?.failure?.message.split('\n')[0]?.slice(0, 200) ?? 'it passes'),
    };
  };
  return {
    async fixed() {
      await sandbox.writeFile(file, script.code);
      return run();
    },
    run,
    afterChange: async () => false,
    afterRestore: async () => false,
    async dispose() {
      await sandbox.exec(`rm -f '${file}'`, { timeoutMs: REPRO_TIMEOUT_MS });
    },
  };
}

/**
 * Runs a repro as its reader would: a script with Node alone, importing the package by its name,
 * or a test file with the repository's runner. On the fixed code it must pass, and on the buggy
 * code it must fail with the reported symptom. The sandbox comes from the judge's pool and goes
 * back with the code clean.
 */
export async function checkRepro(
  candidate: Pick<Candidate, 'sites'>,
  script: Script,
  symptom: Symptom,
  packageName: string,
  judge: Pick<Judge, 'sandboxes' | 'originals' | 'rebuild' | 'suites' | 'request'>,
): Promise<ReproRun> {
  const sandbox = await judge.sandboxes.acquire();
  const { testFile } = script;
  const way = testFile ? asTestFile(sandbox, { ...script, testFile }, judge) : asScript(sandbox, script, packageName);
  const originals = await judge.originals(filesOf(candidate.sites));
  const mutated = mutatedFiles(candidate.sites, (path) => originals.get(path)!);
  let buggy = false;
  let clean = true;
  try {
    const fixed = await way.fixed();
    if ('cut' in fixed) return { status: 'cut', reason: fixed.cut };
    if (fixed.timedOut) return { status: 'cut', reason: 'it does not end on the fixed code' };
    if (!fixed.passed) return { status: 'cut', reason: `it fails on the fixed code too: ${fixed.says}` };
    buggy = true;
    for (const [path, text] of mutated) await sandbox.writeFile(path, text);
    const built = await judge.rebuild(sandbox, mutated);
    if (built) return { status: 'cut', reason: built };
    if (await way.afterChange()) return { status: 'cut', reason: "the package's build fails on the buggy code" };
    const broken = await way.run();
    if (broken.timedOut) return { status: 'cut', reason: 'it does not end on the buggy code' };
    if (broken.passed) return { status: 'cut', reason: 'it passes on the buggy code' };
    if (!broken.shows(symptom)) return { status: 'cut', reason: `it fails otherwise than the statement says: ${broken.says}` };
    return { status: 'executed' };
  } finally {
    if (buggy) {
      for (const [path, text] of originals) await sandbox.writeFile(path, text);
      clean = !(await judge.rebuild(sandbox, originals).catch((error: unknown) => String(error))) && !(await way.afterRestore());
    }
    await way.dispose();
    if (clean || !judge.sandboxes.reuses) await judge.sandboxes.release(sandbox);
    else await sandbox.dispose();
  }
}
