import { dirname } from 'node:path';
import { filesOf, mutatedFiles } from '../store/candidates.js';
import type { Candidate } from '../store/records.js';
import type { Script } from '../statements/repro.js';
import type { Symptom } from '../statements/symptom.js';
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
  /** The package's build ran for repros here, with this exit code on the clean code (some builds end non-zero after writing everything). */
  packageBuild: { exitCode: number | null } | null;
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

/**
 * Runs a repro as its reader would, with Node alone, importing the package by its name: on the
 * fixed code it must pass, and on the buggy code it must fail with the reported symptom. The
 * sandbox comes from the judge's pool and goes back with the code clean.
 */
export async function checkRepro(
  candidate: Pick<Candidate, 'sites'>,
  script: Script,
  symptom: Symptom,
  packageName: string,
  judge: Pick<Judge, 'sandboxes' | 'originals' | 'rebuild'>,
): Promise<ReproRun> {
  const sandbox = await judge.sandboxes.acquire();
  const file = reproFileOf(script);
  const run = () => sandbox.exec({ file: sandbox.tools.node, args: [file] }, { timeoutMs: REPRO_TIMEOUT_MS });
  const originals = await judge.originals(filesOf(candidate.sites));
  const mutated = mutatedFiles(candidate.sites, (path) => originals.get(path)!);
  const setup: ReproSetup = setups.get(sandbox) ?? { linked: false, buildTried: false, packageBuild: null };
  setups.set(sandbox, setup);
  let buggy = false;
  let clean = true;
  try {
    if (!setup.linked) {
      const failed = await linkPackage(sandbox, packageName);
      if (failed) return { status: 'cut', reason: failed };
      setup.linked = true;
    }
    await sandbox.writeFile(file, script.code);
    let fixed = await run();
    if (fixed.exitCode !== 0 && !setup.buildTried && MISSING_MODULE.test(fixed.outputTail)) {
      setup.buildTried = true;
      const build = await buildPackage(sandbox);
      if (build && !build.timedOut) {
        setup.packageBuild = { exitCode: build.exitCode };
        fixed = await run();
      }
    }
    if (fixed.timedOut) return { status: 'cut', reason: 'it does not end on the fixed code' };
    if (fixed.exitCode !== 0) return { status: 'cut', reason: `it fails on the fixed code too: ${lastLine(fixed)}` };
    buggy = true;
    for (const [path, text] of mutated) await sandbox.writeFile(path, text);
    const built = await judge.rebuild(sandbox, mutated);
    if (built) return { status: 'cut', reason: built };
    if (setup.packageBuild && failedAgain(await buildPackage(sandbox), setup.packageBuild))
      return { status: 'cut', reason: "the package's build fails on the buggy code" };
    const broken = await run();
    if (broken.timedOut) return { status: 'cut', reason: 'it does not end on the buggy code' };
    if (broken.exitCode === 0) return { status: 'cut', reason: 'it passes on the buggy code' };
    if (!shows(broken, symptom)) return { status: 'cut', reason: `it fails otherwise than the statement says: ${lastLine(broken)}` };
    return { status: 'executed' };
  } finally {
    if (buggy) {
      for (const [path, text] of originals) await sandbox.writeFile(path, text);
      clean = !(await judge.rebuild(sandbox, originals).catch((error: unknown) => String(error)));
      if (clean && setup.packageBuild) clean = !failedAgain(await buildPackage(sandbox), setup.packageBuild);
    }
    if (clean || !judge.sandboxes.reuses) await judge.sandboxes.release(sandbox);
    else await sandbox.dispose();
  }
}
