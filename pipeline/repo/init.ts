import { existsSync, mkdirSync, mkdtempSync, renameSync, writeFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Logger } from '../common/logger.js';
import { describeIssues, SetupStepError, UserError } from '../common/errors.js';
import { git } from '../common/git.js';
import { detect, importedModules } from './detect.js';
import { factsOf, type RepoFacts } from './facts.js';
import { devDependencyUnfetchable, showsUnfetchable } from './install-sources.js';
import { installRetryOf, pnpmMajors, type InstallContext } from './package-manager.js';
import { runnerNamed } from '../runners/index.js';
import { repositoryName } from './name.js';
import { probe, type ProbeReport } from './probe.js';
import { workspaceFields } from './workspace-profile.js';
import { keepPrepared } from '../sandbox/prepared.js';
import { isGitUrl, RepoProfile, slugOf } from './profile.js';

/** Each retry mends one way an install fails (peer conflicts, a stale lockfile, a missing tag, a tool that cannot be fetched); a repository may have several. */
const INSTALL_RETRIES_AT_MOST = 4;

export interface InitOptions {
  commit?: string;
  name?: string;
  /** Fields to set over what detection found, e.g. { runner: 'mocha' }. */
  overrides: Record<string, unknown>;
  reposDir: string;
  force: boolean;
  /** Workspace packages to cover (names, folders or globs); empty: every package with tests. */
  packages: string[];
  /** Install, build and run one test file before saying the profile works. */
  probe: boolean;
  log: Logger;
}

export interface InitResult {
  path: string;
  profile: RepoProfile;
  /** What detection read, one line per decision. */
  reasons: string[];
  probe: ProbeReport | null;
}

/** Init wrote a profile that does not work yet: the error names it, for whoever edits it and runs it. */
export class UnworkingProfileError extends UserError {
  constructor(
    readonly path: string,
    message: string,
    hint?: string,
  ) {
    super(message, hint);
  }
}

/**
 * Init: looks at a repository (at a commit), writes a repo profile to repos/ for the user to
 * review, and checks it: the test files its globs find and, unless told not to, an install,
 * build and run of one test file. A profile that cannot work is still written, so that it can be
 * edited, and the error names the field to change.
 */
export async function init(target: string, options: InitOptions): Promise<InitResult> {
  const local = !isGitUrl(target);
  if (local && !existsSync(target))
    throw new UserError(`repository ${target} does not exist`, 'pass the path of a repository or a git URL');
  const url = local ? resolve(target) : target;
  const scratch = mkdtempSync(join(tmpdir(), 'swesynth-init-'));
  try {
    let checkout = url;
    // A local repository is set up from its commit, as a clone: what is not committed (a lockfile
    // that git ignores, left by an install) is not there, so detection must not see it either.
    if (!local || options.commit || existsSync(join(url, '.git'))) {
      checkout = join(scratch, 'repo');
      await git(scratch, ['clone', '--quiet', '--no-checkout', url, 'repo']);
      await git(checkout, ['checkout', '--quiet', '--detach', options.commit ?? 'HEAD']);
    }
    if (!existsSync(join(checkout, 'package.json'))) {
      throw new UserError(
        `${target} has no package.json at its root`,
        'swesynth works on JavaScript and TypeScript packages; point it at the package folder',
      );
    }
    const facts = factsOf(checkout);
    const detection = detect(facts);
    const { profile: detected, reasons } = detection;
    const commit = options.commit ?? (existsSync(join(checkout, '.git')) ? await git(checkout, ['rev-parse', 'HEAD']) : null);
    const workspace = await workspaceFields(checkout, detection, options.packages);
    const name =
      options.name ??
      repositoryName({
        url: local ? null : url,
        checkout: local ? url : checkout,
        packageJson: facts.packageJson,
        packageRepositories: workspace?.repositories ?? [],
      });
    if (workspace) reasons.push(...workspace.reasons);
    const fromWorkspace = workspace?.packages
      ? {
          packages: workspace.packages,
          build: workspace.build,
          buildBeforeTests: workspace.build !== null,
          env: { ...workspace.env, ...detected.env },
        }
      : {};
    const parsed = RepoProfile.safeParse({ name, url, commit, ...detected, ...fromWorkspace, ...options.overrides });
    if (!parsed.success) {
      throw new UserError(
        `the detected profile is not valid: ${describeIssues(parsed.error, Object.keys(RepoProfile.shape))}`,
        'set the fields with --name or --set field=value',
      );
    }
    const profile = parsed.data;
    const path = join(options.reposDir, `${slugOf(profile)}.json`);
    if (existsSync(path) && !options.force)
      throw new UserError(`repo profile ${path} already exists`, 'edit it, or pass --force to write it again');
    mkdirSync(options.reposDir, { recursive: true });
    writeProfile(path, profile);

    const listed = workspace?.packages ?? facts.glob(profile.tests);
    if (listed.length === 0 && !profile.build && !options.probe) {
      throw new UnworkingProfileError(
        path,
        `wrote ${path}, but its "tests" (${profile.tests.join(', ')}) find no file`,
        `set "tests" in ${path} to globs that find the test files`,
      );
    }
    if (!options.probe) return { path, profile, reasons, probe: null };
    let probed = profile;
    for (let attempt = 1; ; attempt++) {
      try {
        const workspace = join(scratch, `probe-${attempt}`);
        const report = await probe({ location: url, profile: probed, log: options.log }, workspace, { wholeSuite: false });
        const tested =
          report.untested.length === 0
            ? probed
            : { ...probed, packages: probed.packages?.filter((pkg) => !report.untested.includes(pkg.path)) };
        if (tested !== probed) {
          reasons.push(`no test files after the build in ${report.untested.join(', ')}: left out`);
          writeProfile(path, tested);
        }
        if (await keepPrepared({ location: url, profile: tested }, workspace))
          options.log.info('init: the installed and built workspace is kept for the first `run` of this profile');
        return { path, profile: tested, reasons, probe: report };
      } catch (error) {
        // An install the user did not choose that fails in a way another install avoids is retried that way.
        const retry =
          error instanceof SetupStepError && error.step === 'install' && probed.install && !('install' in options.overrides)
            ? installRetryOf(probed.install, error.output, await installContext(facts, probed, error.output))
            : null;
        if (retry && attempt <= INSTALL_RETRIES_AT_MOST) {
          options.log.info(`init: ${retry.why}`);
          reasons.push(`install: ${retry.why}`);
          probed = { ...probed, install: retry.install };
          writeProfile(path, probed);
          continue;
        }
        if (error instanceof UserError)
          throw new UnworkingProfileError(
            path,
            `wrote ${path}, but it does not work yet: ${error.message}`,
            error.hint?.replace(/the profile/g, path),
          );
        throw error;
      }
    }
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/**
 * What an install retry may know beside the output: the manifest, the pnpm majors that read the lockfile,
 * and a tool the tests never load that could not be fetched.
 */
async function installContext(facts: RepoFacts, profile: RepoProfile, output: string): Promise<InstallContext> {
  const known = { manifest: facts.packageJson, pnpmMajors: pnpmMajors(facts).majors };
  if (!showsUnfetchable(output)) return known;
  const tool = await devDependencyUnfetchable(facts, output);
  const loaded = (name: string) =>
    facts
      .glob(profile.tests)
      .some((file) => importedModules(facts.read(file) ?? '').some((module) => module === name || module.startsWith(`${name}/`)));
  return { ...known, unfetchableTool: tool !== null && tool !== runnerNamed(profile.runner).package && !loaded(tool) ? tool : null };
}

/** Writes a profile whole or not at all: it is never left half-written. */
export function writeProfile(path: string, profile: RepoProfile): void {
  writeFileSync(`${path}.partial`, `${JSON.stringify(profile, null, 2)}\n`);
  renameSync(`${path}.partial`, path);
}
