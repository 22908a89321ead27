import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { describeIssues, UserError } from '../common/errors.js';
import { RUNNER_NAMES } from '../runners/types.js';
import { managerOnPath } from './package-manager.js';

const TEST_GLOBS = ['test/**/*.test.{js,mjs,cjs}', 'test/**/*.spec.{js,mjs,cjs}', 'tests/**/*.test.{js,mjs,cjs}', '**/*.test.{js,mjs,cjs}'];

/** A package of a workspace with a test suite of its own, whose runner starts in its folder. */
export const PackageProfile = z
  .object({
    /** The package's folder, repository-relative, e.g. `packages/core`. */
    path: z
      .string()
      .min(1)
      .refine(
        (path) =>
          !path.startsWith('/') && !path.endsWith('/') && path.split('/').every((part) => part !== '' && part !== '.' && part !== '..'),
        {
          message: 'must be a folder inside the repository, written like packages/core',
        },
      ),
    name: z.string().min(1),
    runner: z.enum(RUNNER_NAMES),
    /** Extra arguments for the runner, as for the repository's own runner. */
    runnerArgs: z.array(z.string()).default([]),
    /** Test file globs, relative to the package's folder. */
    tests: z.array(z.string()).min(1).default(TEST_GLOBS),
  })
  .strict();
export type PackageProfile = z.infer<typeof PackageProfile>;

/** How to obtain, install and test one repository. Written by hand or by `init`, reviewed by the user. */
export const RepoProfile = z
  .object({
    /** owner/name, used in instance ids and the dataset's `repo` field. */
    name: z.string().regex(/^[\w.-]+\/[\w.-]+$/, 'must look like owner/name'),
    /** A git URL or a local path (relative paths are relative to the profile file). */
    url: z.string().min(1),
    /** Commit to check out; null takes the working tree (local paths) or HEAD. */
    commit: z.string().nullable().default(null),
    /** The Node.js version (or range) the install, build and tests run with; null: this machine's. */
    node: z.string().nullable().default(null),
    packageManager: z.enum(['npm', 'pnpm', 'yarn', 'bun', 'none']).default('npm'),
    install: z.string().nullable().default(null),
    build: z.string().nullable().default(null),
    /** The tests run on built output: the build runs again before every candidate's tests. */
    buildBeforeTests: z.boolean().default(false),
    /**
     * Every candidate runs every test, as with --whole-suite: the coverage setup learns cannot tell
     * which tests reach the code (init sets it when its sanity mutants reach no test by coverage).
     */
    wholeSuite: z.boolean().default(false),
    runner: z.enum(RUNNER_NAMES).default('node-test'),
    /** Extra arguments for the runner, e.g. a config file or an exclusion. */
    runnerArgs: z.array(z.string()).default([]),
    /** Below this share of stable-passing tests, and of test files with one, the repository is refused. */
    minPassShare: z.number().min(0).max(1).default(0.8),
    source: z
      .object({
        include: z.array(z.string()).min(1).default(['src/**/*.{js,mjs,cjs,ts,mts,cts,jsx,tsx}', 'lib/**/*.{js,mjs,cjs,ts,mts,cts}']),
        exclude: z.array(z.string()).default(['**/*.test.*', '**/*.spec.*', '**/*.d.ts', '**/node_modules/**']),
      })
      .prefault({}),
    tests: z.array(z.string()).min(1).default(TEST_GLOBS),
    /**
     * A workspace's packages, each with its own runner and tests, in place of `runner`,
     * `runnerArgs` and `tests`; install and build still run at the root. Empty: one suite.
     * Parsing always gives it; its type leaves it optional, as detection writes no packages.
     */
    packages: z
      .array(PackageProfile)
      .refine((packages) => new Set(packages.map((pkg) => pkg.path)).size === packages.length, { message: 'names a package folder twice' })
      .default([])
      .optional(),
    env: z.record(z.string(), z.string()).default({}),
    timeouts: z
      .object({
        installMs: z.number().int().positive().default(600_000),
        /** A candidate's test run may take this many times the slowest baseline run, plus `minimumMs`. */
        factor: z.number().positive().default(2),
        minimumMs: z.number().int().positive().default(4_000),
      })
      .prefault({}),
  })
  .strict();
export type RepoProfile = z.infer<typeof RepoProfile>;

export function isGitUrl(target: string): boolean {
  return /^(https?|ssh|git|file):\/\//.test(target) || /^[\w.-]+@[\w.-]+:/.test(target);
}

/** Where the repository's code comes from, with local paths made absolute. */
export function sourceLocation(profile: RepoProfile, profileDir: string): string {
  return isGitUrl(profile.url) || isAbsolute(profile.url) ? profile.url : resolve(profileDir, profile.url);
}

export function loadProfile(path: string): { profile: RepoProfile; location: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new UserError(`cannot read repo profile ${path}: ${(error as Error).message}`, 'fix the JSON or write the profile again');
  }
  const parsed = RepoProfile.safeParse(raw);
  if (!parsed.success) {
    throw new UserError(
      `repo profile ${path} is malformed: ${describeIssues(parsed.error, Object.keys(RepoProfile.shape))}`,
      'fix those fields and run again',
    );
  }
  return { profile: parsed.data, location: sourceLocation(parsed.data, dirname(resolve(path))) };
}

/** owner__name: the file-system-safe form of a profile name. */
export function slugOf(profile: RepoProfile): string {
  return profile.name.replace('/', '__');
}

/**
 * `npm ci` takes the files its lockfile pins, each named by its digest: a copy in npm's cache is
 * that file, and asking the registry whether it changed costs a request per package (seconds for a
 * small tree, more for a large one). Missing files are still fetched.
 */
const fromCache = (install: string): string =>
  /^npm ci(?=\s|$)/.test(install) && !/--prefer-(?:offline|online)|--offline/.test(install)
    ? install.replace(/^npm ci/, 'npm ci --prefer-offline')
    : install;

/**
 * The setup steps as they run, install then build. The install puts its package manager on the
 * PATH (managerOnPath), and runs without NODE_OPTIONS: the
 * test script's (`NODE_OPTIONS='--loader=esmock' ava`) load packages the install has yet to put
 * in node_modules, and every Node.js process of the install would fail to start.
 */
export function setupSteps(profile: RepoProfile): Array<{ step: 'install' | 'build'; command: string }> {
  const shim = managerOnPath(profile.install);
  const install = profile.install && fromCache(profile.install);
  // Braced: the shim's own `||` must not run (and succeed) when the install fails.
  const withShim = install && shim ? `${install} && { ${shim}; }` : install;
  const command = withShim && profile.env.NODE_OPTIONS !== undefined ? `unset NODE_OPTIONS; ${withShim}` : withShim;
  return [
    { step: 'install' as const, command },
    { step: 'build' as const, command: profile.build },
  ].filter((entry): entry is { step: 'install' | 'build'; command: string } => entry.command !== null);
}
