import { join } from 'node:path';
import { UserError } from '../common/errors.js';
import { detect, type Detection } from './detect.js';
import { factsOf } from './facts.js';
import type { PackageProfile } from './profile.js';
import { workspaceBuild, workspacePackages, type WorkspacePackage } from './workspaces.js';
import { managerCommand } from './package-manager.js';

/** What a workspace adds to the root's profile: its packages with tests, each detected in its own folder, and their build. */
export interface WorkspaceFields {
  /** Null when the root's test script runs the packages' tests itself: the root's one suite covers them. */
  packages: PackageProfile[] | null;
  build: string | null;
  env: Record<string, string>;
  reasons: string[];
  /** The `repository` URLs the workspace's packages declare, for a root that declares none. */
  repositories: string[];
}

/** `--package` values: a package's name or folder, or a glob over either (`@scope/*`, `packages/*`). */
function matches(pkg: WorkspacePackage, selectors: string[]): boolean {
  if (selectors.length === 0) return pkg.hasTests;
  return selectors.some((selector) => {
    const expression = new RegExp(
      `^${selector
        .replace(/[.+^${}()|[\]\\]/g, '\\$&')
        .replace(/\*\*/g, '.*')
        .replace(/(?<!\.)\*/g, '[^/]*')}$`,
    );
    return expression.test(pkg.name) || expression.test(pkg.path);
  });
}

/**
 * The workspace's own build, when the root's test script does not already run one: the root
 * `build` script, else `tsc -b` over project references, else every package's `build` script.
 */
function buildCommand(install: string | null, found: Awaited<ReturnType<typeof workspaceBuild>>): string | null {
  const manager = managerCommand(install);
  const isNpm = /^npm\b/.test(manager);
  if (found.rootScript !== null) return `${isNpm ? 'npm' : manager} run build`;
  if (found.tscReferences.length > 0) return 'npx tsc -b';
  if (found.packageScripts.length === 0) return null;
  if (isNpm) return 'npm run build --workspaces --if-present';
  if (/pnpm/.test(manager)) return `${manager} -r --if-present run build`;
  return found.packageScripts.map((path) => `(cd ${path} && ${manager} run build)`).join(' && ');
}

/** The packages (their paths) that hold files the globs find. */
function packagesWithFiles(root: string, packages: WorkspacePackage[], globs: string[]): string[] {
  if (globs.length === 0) return [];
  const files = factsOf(root).glob(globs);
  return packages.filter((pkg) => files.some((file) => file.startsWith(`${pkg.path}/`))).map((pkg) => pkg.path);
}

/** Null when the repository is not a workspace. */
export async function workspaceFields(root: string, rootDetection: Detection, selectors: string[]): Promise<WorkspaceFields | null> {
  const all = await workspacePackages(root);
  if (all.length === 0) {
    if (selectors.length > 0)
      throw new UserError(`--package ${selectors.join(' ')}: the repository declares no workspace packages`, 'leave out --package');
    return null;
  }
  const rootProfile = rootDetection.profile;
  const repositories = all.flatMap((pkg) => (pkg.repository ? [pkg.repository] : []));
  // The suite the repository itself runs wins over guessing each package, unless packages are asked for by name.
  const covered = selectors.length === 0 ? packagesWithFiles(root, all, rootDetection.suiteFiles) : [];
  if (covered.length > 0) {
    const reason = `the root's test script runs ${rootProfile.runner} over the tests of ${covered.length} workspace packages (${rootDetection.suiteFiles.join(', ')}): one suite at the root`;
    return { packages: null, build: null, env: {}, reasons: [reason], repositories };
  }
  // Packages with test files and no test script: only the root's runner runs them, with the root's config.
  const unscripted =
    selectors.length === 0 && rootDetection.callsRunner && all.every((pkg) => pkg.testScript === null)
      ? packagesWithFiles(root, all, rootProfile.tests)
      : [];
  if (unscripted.length > 0) {
    const reason = `no workspace package has a test script; the root's test script runs ${rootProfile.runner} over the tests of ${unscripted.length} of them (${rootProfile.tests.join(', ')}): one suite at the root`;
    return { packages: null, build: null, env: {}, reasons: [reason], repositories };
  }
  const chosen = all.filter((pkg) => matches(pkg, selectors));
  // No package has tests of its own, and the root's tests sit outside them: they test the packages together.
  // Those the root's runner call names, else, where the root calls a runner, the files its config or defaults find.
  const rootGlobs = rootDetection.suiteFiles.length > 0 ? rootDetection.suiteFiles : rootDetection.callsRunner ? rootProfile.tests : [];
  const rootTests = chosen.length === 0 && selectors.length === 0 ? factsOf(root).glob(rootGlobs).length : 0;
  if (rootTests > 0) {
    const reason = `no workspace package has tests of its own; the root's test script runs ${rootProfile.runner} over ${rootTests} test file${rootTests === 1 ? '' : 's'} at the root: one suite there`;
    return { packages: null, build: null, env: {}, reasons: [reason], repositories };
  }
  if (chosen.length === 0) {
    const listed = all.map((pkg) => `${pkg.name} (${pkg.path}${pkg.hasTests ? '' : ', no tests'})`).join(', ');
    throw new UserError(
      `no workspace package with tests matches ${selectors.length > 0 ? selectors.join(' ') : 'the default (every package with tests)'}`,
      `choose with --package <name|glob>: ${listed}`,
    );
  }
  const env: Record<string, string> = {};
  const packageBuilds: string[] = [];
  const rootFacts = factsOf(root);
  const detected = chosen.map((pkg) => ({ pkg, ...detect(factsOf(join(root, pkg.path)), rootFacts) }));
  // A package whose runner finds no test file globs at all has no suite to run: left out, with the reason.
  const untested = detected.filter(({ profile }) => profile.tests.length === 0);
  const tested = detected.filter(({ profile }) => profile.tests.length > 0);
  if (tested.length === 0)
    throw new UserError(
      `no workspace package has test files its runner finds: ${untested.map(({ pkg, profile }) => `${pkg.path} (${profile.runner})`).join(', ')}`,
      'name the packages to cover with --package <name|glob>, or set "runner" and "tests" for the root',
    );
  const reasons = [`workspace of ${all.length} packages; profiles for ${tested.length}: ${tested.map(({ pkg }) => pkg.path).join(', ')}`];
  for (const { pkg, profile } of untested) reasons.push(`${pkg.path}: left out, ${profile.runner} finds no test files in it`);
  const packages = tested.map(({ pkg, profile, reasons: why }): PackageProfile => {
    reasons.push(...why.filter((reason) => /^(runner|tests|build)/.test(reason)).map((reason) => `${pkg.path}: ${reason}`));
    Object.assign(env, profile.env);
    // As its package manager runs its scripts: the package's own binaries (pnpm links them there, not at the root) first.
    if (profile.build) packageBuilds.push(`(cd ${pkg.path} && export PATH="$PWD/node_modules/.bin:$PATH" && ${profile.build})`);
    return { path: pkg.path, name: pkg.name, runner: profile.runner, runnerArgs: profile.runnerArgs, tests: profile.tests };
  });
  const workspace = rootProfile.build ?? buildCommand(rootProfile.install, await workspaceBuild(root, all));
  const build = [workspace, ...packageBuilds].filter((step): step is string => step !== null).join(' && ') || null;
  if (build) reasons.push(`workspace build: ${build}`);
  return { packages, build, env, reasons, repositories };
}
