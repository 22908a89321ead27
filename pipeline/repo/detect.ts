import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RepoProfile } from './profile.js';
import type { RunnerName } from '../runners/types.js';

/** What detection reads: the root's package.json and which files exist. */
export interface RepoFacts {
  packageJson: PackageJson;
  /** Files at the repository root. */
  rootFiles: string[];
  /** A root file's text, or undefined. */
  read(file: string): string | undefined;
}

interface PackageJson {
  name?: string;
  version?: string;
  packageManager?: string;
  scripts?: Record<string, string>;
  dependencies?: Record<string, string>;
  devDependencies?: Record<string, string>;
  ava?: { files?: string[] };
  mocha?: { spec?: string | string[] };
}

export type DetectedProfile = Omit<RepoProfile, 'name' | 'url' | 'commit' | 'minPassShare' | 'timeouts' | 'env'> & { env: Record<string, string> };

const SOURCE_EXTENSIONS = '{js,mjs,cjs,ts,mts,cts,jsx,tsx}';
const NOT_SOURCE = [
  '**/node_modules/**', '**/dist/**', '**/build/**', '**/coverage/**', '**/out/**', '**/*.d.ts', '**/*.d.mts', '**/*.d.cts',
  'docs/**', 'doc/**', 'examples/**', 'example/**', 'benchmarks/**', 'benchmark/**', 'bench/**', 'scripts/**', 'website/**',
  'site/**', '_site/**', 'perf-testing/**', '__performance_tests__/**', 'tap-snapshots/**', 'typings/**', 'types/**',
  // Test code is never mutated, wherever it lives: suites, their fixtures and helpers.
  '**/test/**', '**/tests/**', '**/__tests__/**', '**/spec/**', '**/__mocks__/**', '**/fixtures/**', '**/*.{test,spec,test-d}.*',
  '**/*.config.*', '**/.*rc.*', '**/.*/**',
];
const DEFAULT_TESTS: Record<RunnerName, string[]> = {
  jest: ['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[jt]s?(x)'],
  vitest: ['**/*.{test,spec}.?(c|m)[jt]s?(x)', '**/__tests__/**/*.?(c|m)[jt]s?(x)'],
  'node-test': ['**/*.test.?(c|m)js', '**/*-test.?(c|m)js', '**/*_test.?(c|m)js', '**/test-*.?(c|m)js', '**/test/**/*.?(c|m)js'],
  mocha: ['test/*.{js,cjs,mjs}'],
  tap: ['test/**/*.{js,cjs,mjs,ts}', 'tests/**/*.{js,cjs,mjs,ts}', '**/*.test.{js,cjs,mjs,ts}'],
  tape: ['test/**/*.{js,cjs,mjs}'],
  ava: ['test.js', 'src/test.js', 'source/test.js', '**/test-*.{js,cjs,mjs}', '**/*.spec.{js,cjs,mjs}', '**/*.test.{js,cjs,mjs}', '**/test/**/*.{js,cjs,mjs}', '**/tests/**/*.{js,cjs,mjs}', '**/__tests__/**/*.{js,cjs,mjs}'],
};
/** Commands that only wrap the runner (coverage, environment) and are dropped to find it. */
const WRAPPERS = new Set(['c8', 'nyc', 'cross-env', 'dotenv', 'env', 'npx', 'pnpm exec', 'yarn', 'time']);
/** Runner flags swesynth sets itself (reporters, coverage, watch), dropped from runnerArgs. */
const MANAGED_FLAG = /^--?(coverage|no-coverage|collectCoverage|watch|watchAll|reporter|reporters|json|outputFile|ci|R|color|colors|bail|silent|verbose|tap)\b/;
const BUILD_TOOLS = /\b(tsc|tsup|tsdown|rollup|esbuild|babel|webpack|microbundle|swc|unbuild|vite build)\b/;

function words(command: string): string[] {
  return (command.match(/'[^']*'|"[^"]*"|\S+/g) ?? []).map((word) => word.replace(/^(['"])(.*)\1$/, '$2'));
}

/** The commands a script runs, following `npm run x`, `pnpm x` and `yarn x` into other scripts. */
function expandScript(scripts: Record<string, string>, name: string, seen = new Set<string>()): string[] {
  const script = scripts[name];
  if (script === undefined || seen.has(name)) return [];
  seen.add(name);
  return script
    .split(/&&|\|\||;|\|/)
    .map((part) => part.trim())
    .filter(Boolean)
    .flatMap((part) => {
      const call = /^(?:npm run|npm run-script|pnpm run|pnpm|yarn run|yarn)\s+(?:--silent\s+)?([\w:.-]+)/.exec(part);
      return call && scripts[call[1]!] !== undefined ? expandScript(scripts, call[1]!, seen) : [part];
    });
}

interface RunnerCall {
  runner: RunnerName;
  flags: string[];
  positional: string[];
}

/** Finds the runner in one command: `c8 mocha 'test/*.mjs'`, `NODE_ENV=test jest --env node`, `node --test`. */
function runnerCall(command: string): RunnerCall | null {
  const tokens = words(command);
  while (tokens.length > 0 && (/^\w+=/.test(tokens[0]!) || WRAPPERS.has(tokens[0]!) || (tokens[0]!.startsWith('-') && tokens.length > 1))) tokens.shift();
  const [bin, ...rest] = tokens;
  let runner: RunnerName | null = null;
  if (bin === 'node' && rest.includes('--test')) {
    runner = 'node-test';
    rest.splice(rest.indexOf('--test'), 1);
  } else if (bin === 'jest' || bin === 'vitest' || bin === 'mocha' || bin === 'tap' || bin === 'tape' || bin === 'ava') {
    runner = bin;
  }
  if (!runner) return null;
  if (runner === 'vitest' && (rest[0] === 'run' || rest[0] === 'watch')) rest.shift();
  const flags: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    if (word.startsWith('-')) {
      const takesValue = !word.includes('=') && rest[i + 1] !== undefined && !rest[i + 1]!.startsWith('-') && !/[*/]|\.[cm]?[jt]s$/.test(rest[i + 1]!);
      const value = takesValue ? rest[++i]! : null;
      if (!MANAGED_FLAG.test(word)) flags.push(word, ...(value === null ? [] : [value]));
    } else {
      positional.push(word);
    }
  }
  return { runner, flags, positional };
}

const RUNNER_PACKAGES: RunnerName[] = ['vitest', 'jest', 'mocha', 'ava', 'tap', 'tape'];

function packageManagerOf(facts: RepoFacts): { packageManager: RepoProfile['packageManager']; install: string | null; version: string | null } {
  const declared = /^(npm|pnpm|yarn)@([\w.-]+)/.exec(facts.packageJson.packageManager ?? '');
  const has = (file: string) => facts.rootFiles.includes(file);
  const manager = declared?.[1] ?? (has('pnpm-lock.yaml') ? 'pnpm' : has('yarn.lock') ? 'yarn' : 'npm');
  const version = declared?.[2]?.replace(/-\d+$/, '') ?? null;
  if (manager === 'pnpm') return { packageManager: 'pnpm', install: `npx -y pnpm@${version ?? '9'} install --frozen-lockfile`, version };
  if (manager === 'yarn') {
    const berry = !(facts.read('yarn.lock') ?? '').includes('# yarn lockfile v1');
    // Yarn 1 refuses to install when a dev tool asks for a newer Node than the tests need.
    return { packageManager: 'yarn', install: berry ? 'corepack yarn install --immutable' : 'npx -y yarn@1 install --frozen-lockfile --ignore-engines', version };
  }
  const locked = has('package-lock.json') || has('npm-shrinkwrap.json');
  return { packageManager: 'npm', install: locked ? 'npm ci' : 'npm install', version };
}

/**
 * A repo profile from what the repository shows: package manager from the lockfile, runner and
 * its arguments from the test script (followed through `npm run`), the build that the tests
 * need, test and source globs. Every field is a suggestion for the user to review.
 */
export function detectProfile(facts: RepoFacts): DetectedProfile {
  const { packageJson } = facts;
  const scripts = packageJson.scripts ?? {};
  const dependencies = { ...packageJson.dependencies, ...packageJson.devDependencies };
  const calls = expandScript(scripts, 'test').map(runnerCall).filter((call): call is RunnerCall => call !== null);
  const call = calls[0] ?? null;
  const runner: RunnerName = call?.runner ?? RUNNER_PACKAGES.find((name) => name in dependencies) ?? 'node-test';

  const configured = runner === 'ava' ? packageJson.ava?.files : runner === 'mocha' ? [packageJson.mocha?.spec ?? []].flat() : undefined;
  const positional = call?.positional.filter((word) => word !== '.') ?? [];
  const tests = positional.length > 0 ? positional : configured && configured.length > 0 ? configured : DEFAULT_TESTS[runner];

  // A build in `pretest` is one the tests depend on: it runs again before every candidate's tests.
  const pretest = expandScript(scripts, 'pretest').filter((command) => BUILD_TOOLS.test(command) || /^(npx\s+)?rimraf\b/.test(command));
  const build = pretest.length > 0 ? pretest.join(' && ') : null;

  const { packageManager, install } = packageManagerOf(facts);
  const env: Record<string, string> = {};
  // Puppeteer's install script downloads a browser, which fails offline and is never needed here.
  if ('puppeteer' in dependencies) env.PUPPETEER_SKIP_DOWNLOAD = '1';

  return {
    packageManager,
    install,
    build,
    buildBeforeTests: build !== null,
    runner,
    runnerArgs: call?.flags ?? [],
    source: { include: [`**/*.${SOURCE_EXTENSIONS}`], exclude: NOT_SOURCE },
    tests,
    env,
  };
}

/** The facts of a checked-out repository on disk. */
export function factsOf(root: string, rootFiles: string[]): RepoFacts {
  const read = (file: string): string | undefined => (existsSync(join(root, file)) ? readFileSync(join(root, file), 'utf8') : undefined);
  const packageJson = JSON.parse(read('package.json') ?? '{}') as PackageJson;
  return { packageJson, rootFiles, read };
}
