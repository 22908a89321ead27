import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../common/logger.js';
import { UserError } from '../common/errors.js';
import { managerCommand } from '../repo/package-manager.js';
import { factsOf } from '../repo/facts.js';
import type { RepoProfile } from '../repo/profile.js';
import { init, UnworkingProfileError, writeProfile, type InitOptions, type InitResult } from '../repo/init.js';
import { keepPrepared } from '../sandbox/prepared.js';
import { STAGES } from '../stages/index.js';
import type { StageContext } from '../stages/context.js';
import { RunStore } from '../store/run-store.js';
import { UNREACHED } from '../validation/judge.js';
import { DEFAULTS, runOptionsFrom } from './options.js';
import { withProfileChoices } from './services.js';

/** Sanity mutants per proof: enough to spread over a few source files, few enough to stay quick. */
const SANITY_MUTANTS = 5;
/** Operators whose mutants a suite that tests a function almost always notices. */
const SANITY_OPERATORS = ['changed-return-value', 'removed-return-value', 'equality-flip', 'comparison-boundary', 'arithmetic-swap'];
/** Scripts that build a package, in the order a contributor would try them. */
const BUILD_SCRIPTS = ['build', 'compile'];

/** What the sanity mutants showed of a profile, and the fallback it needed. */
export interface ProofReport {
  candidates: number;
  /** Candidates whose code a test executes, by the coverage setup learned (or every one, with the whole suite). */
  reached: number;
  /** Candidates a stable test noticed. */
  killed: number;
  /** Candidates that became tasks. */
  kept: number;
  /** The profile change that made the sanity mutants killable, with why; null when the profile worked as detected. */
  fallback: string | null;
  profile: RepoProfile;
}

interface Attempt {
  candidates: number;
  reached: number;
  killed: number;
  kept: number;
}

const NOTICED = new Set(['kept', 'killed', 'fix-failed', 'no-pass', 'build-failed']);

/**
 * The proof of a profile: a few sanity mutants, spread over the source by the sampler, taken
 * through the real path (setup's sandbox, install, build, baseline and coverage; selection by
 * coverage; the runner) in a run of their own under `dir`. When none is reached, every candidate
 * runs the whole suite; when none is noticed though the suite passes and the repository has a
 * build script the profile does not run before the tests, it runs it before each candidate's
 * tests. The fallback that works is the profile's; when none does, a UserError names the likeliest
 * cause and the field to change. A workspace init kept for the first run is handed on.
 */
export async function proveProfile(source: { location: string; profile: RepoProfile; log: Logger }, dir: string): Promise<ProofReport> {
  const { location, log } = source;
  let profile = source.profile;
  const options = runOptionsFrom(
    { ...DEFAULTS, maxCandidates: SANITY_MUTANTS, operators: SANITY_OPERATORS, baselineRuns: 1, progress: false, typeCheck: false },
    'proof',
  );
  const quiet: Logger = { info: () => undefined, warn: (message) => log.warn(`init: proof: ${message}`) };
  const store = new RunStore(join(dir, 'run.db'));
  const ctx: StageContext = { store, profile, location, runDir: dir, options: withProfileChoices(options, profile), log: quiet };
  try {
    for (const stage of STAGES.filter((stage) => stage.name === 'setup' || stage.name === 'mutate')) await stage.run(ctx);
    if (store.candidates().length === 0)
      throw new UserError(
        'it makes no mutant: "source.include" finds no function outside tests, declarations and built output',
        'set "source.include" in the profile to globs of the source files',
      );
    let attempt = await validate(ctx);
    let fallback: string | null = null;
    if (attempt.reached === 0 && !ctx.options.wholeSuite) {
      const whole = { ...profile, wholeSuite: true };
      const tried = await validate({ ...ctx, profile: whole, options: withProfileChoices(ctx.options, whole) });
      log.info(
        `init: proof: no test executes any of the ${attempt.candidates} sanity mutants by coverage; with the whole suite: ${proofLine(tried)}`,
      );
      if (tried.killed > 0) {
        [profile, attempt] = [whole, tried];
        fallback = 'wholeSuite: coverage maps no test to the mutated code, so every candidate runs every test';
      }
    }
    const build = attempt.killed === 0 ? unusedBuild(profile, join(dir, 'workspace')) : null;
    if (build) {
      // Built code that no test reached by coverage may still be reached through the whole suite.
      const rebuilt = { ...profile, build, buildBeforeTests: true, wholeSuite: profile.wholeSuite || attempt.reached === 0 };
      const tried = await validate({ ...ctx, profile: rebuilt, options: withProfileChoices(ctx.options, rebuilt) });
      log.info(`init: proof: no test noticed a sanity mutant; with \`${build}\` before each run: ${proofLine(tried)}`);
      if (tried.killed > 0) {
        [profile, attempt] = [rebuilt, tried];
        fallback = `build: the tests run on what \`${build}\` writes, so it runs before each candidate's tests${rebuilt.wholeSuite ? ', and every candidate runs every test' : ''}`;
      }
    }
    if (attempt.killed === 0) throw unprovable(profile, attempt);
    return { ...attempt, fallback, profile };
  } finally {
    const setUp = store.stageSummary('setup') !== undefined;
    store.close();
    // The workspace setup made (or took from init) goes on to the first run, when the profile's setup is the one it was made with.
    if (setUp && profile.build === source.profile.build) await keepPrepared({ location, profile }, join(dir, 'workspace'));
  }
}

/** Validates the sanity mutants under the context's profile and options, from scratch. */
async function validate(ctx: StageContext): Promise<Attempt> {
  ctx.store.forgetValidation();
  const stage = STAGES.find((candidate) => candidate.name === 'validate')!;
  try {
    await stage.run(ctx);
  } catch (error) {
    // Validation refuses a result in which no test reached any candidate: that is the answer here.
    if (!(error instanceof UserError)) throw error;
  }
  const verdicts = ctx.store.verdicts();
  return {
    candidates: ctx.store.candidates().length,
    reached: verdicts.filter((verdict) => !(verdict.status === 'survived' && verdict.detail === UNREACHED)).length,
    killed: verdicts.filter((verdict) => NOTICED.has(verdict.status)).length,
    kept: verdicts.filter((verdict) => verdict.status === 'kept').length,
  };
}

/** A build script of the repository that the profile does not run before each candidate's tests. */
function unusedBuild(profile: RepoProfile, workspace: string): string | null {
  if (profile.buildBeforeTests && profile.build) return null;
  if (profile.build) return profile.build;
  const scripts = factsOf(workspace).packageJson.scripts ?? {};
  const name = BUILD_SCRIPTS.find((script) => scripts[script] !== undefined);
  return name ? `${managerCommand(profile.install)} run ${name}` : null;
}

export function proofLine(proof: Pick<Attempt, 'candidates' | 'reached' | 'killed' | 'kept'>): string {
  return `${proof.candidates} sanity mutants, ${proof.reached} reached by a test, ${proof.killed} noticed, ${proof.kept} kept as tasks`;
}

function unprovable(profile: RepoProfile, attempt: Attempt): UserError {
  if (attempt.reached === 0)
    return new UserError(
      `it cannot make a task: no test executes the code of any of ${attempt.candidates} sanity mutants, even running the whole suite`,
      'check that "source.include" names the files the tests load, and "tests" the files that test them',
    );
  return new UserError(
    `it cannot make a task: tests reach ${attempt.reached} of ${attempt.candidates} sanity mutants and notice none`,
    profile.build
      ? `the tests may load files "build" does not write from the source: check "build" and "source.include"`
      : 'the tests may load built or published code rather than the source: set "build" (and "buildBeforeTests") to the command that writes what they load',
  );
}

/**
 * Init, then the proof of the profile it wrote (unless `prove` is off, or the probe was): a
 * fallback the proof needed is written into the profile with its reason; a profile the proof
 * cannot make work is an UnworkingProfileError that names the cause and the field to change.
 */
export async function initProved(
  target: string,
  options: InitOptions & { prove: boolean },
): Promise<InitResult & { proof: ProofReport | null }> {
  const result = await init(target, options);
  if (!options.prove || !result.probe) return { ...result, proof: null };
  const scratch = mkdtempSync(join(tmpdir(), 'swesynth-proof-'));
  try {
    const proof = await proveProfile({ location: result.profile.url, profile: result.profile, log: options.log }, scratch);
    if (proof.fallback) {
      writeProfile(result.path, proof.profile);
      result.reasons.push(`proof: ${proof.fallback}`);
    }
    return { ...result, profile: proof.profile, proof };
  } catch (error) {
    if (error instanceof UserError && !(error instanceof UnworkingProfileError))
      throw new UnworkingProfileError(
        result.path,
        `wrote ${result.path}, but ${error.message}`,
        error.hint?.replace(/the profile/g, result.path),
      );
    throw error;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
