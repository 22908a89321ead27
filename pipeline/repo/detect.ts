import { basename, posix } from 'node:path';
import { allRunners } from '../runners/index.js';
import type { RunnerAdapter, RunnerInvocation, RunnerName } from '../runners/types.js';
import { parsePackageJson, type PackageJson, type RepoFacts } from './facts.js';
import { isObject } from './config-file.js';
import { pnpmWorkspaceGlobs } from './workspaces.js';
import { profileNode } from './node-version.js';
import { packageManagerOf } from './package-manager.js';
import type { RepoProfile } from './profile.js';
import { follow } from './command-files.js';
import { commandLine, parseScript, runsNoTest, type SimpleCommand } from './shell.js';
import { installedManager, scriptCall, scriptRun, type InstalledManager } from './script-calls.js';

export type { RepoFacts } from './facts.js';
export { factsOf } from './facts.js';

export type DetectedProfile = Omit<RepoProfile, 'name' | 'url' | 'commit' | 'minPassShare' | 'timeouts' | 'env' | 'wholeSuite'> & {
  env: Record<string, string>;
};

/** A profile as detected, with one line per decision saying what it was read from (for `doctor`). */
export interface Detection {
  profile: DetectedProfile;
  reasons: string[];
  /** The test globs, when the test script's runner call names its files (`mocha "packages/*\/test/*.js"`); else empty. */
  suiteFiles: string[];
  /**
   * Whether the root runs the suite itself: its test script calls a runner, or (a script swesynth
   * cannot read, a make file running a shell script) the runner's config file at the root lists the tests.
   */
  callsRunner: boolean;
}

const SOURCE_EXTENSIONS = '{js,mjs,cjs,ts,mts,cts,jsx,tsx}';
const NOT_SOURCE = [
  '**/node_modules/**',
  '**/dist/**',
  '**/build/**',
  '**/coverage/**',
  '**/out/**',
  '**/*.d.ts',
  '**/*.d.mts',
  '**/*.d.cts',
  'docs/**',
  'doc/**',
  'examples/**',
  'example/**',
  'benchmarks/**',
  'benchmark/**',
  'bench/**',
  'scripts/**',
  'website/**',
  'site/**',
  '_site/**',
  'perf-testing/**',
  '__performance_tests__/**',
  'tap-snapshots/**',
  'typings/**',
  'types/**',
  // Test code is never mutated, wherever it lives: suites, their fixtures and helpers.
  '**/test/**',
  '**/tests/**',
  '**/__tests__/**',
  '**/spec/**',
  '**/__mocks__/**',
  '**/fixtures/**',
  '**/*.{test,spec,test-d}.*',
  '**/*.config.*',
  '**/.*rc.*',
  '**/.*/**',
];
/** Scripts that run a suite when `test` does not, in the order they are tried. */
const TEST_SCRIPTS = ['test', 'test:unit', 'test:node', 'test:all', 'tests', 'unit', 'spec'];
/** Steps that only check (lint, types, formatting, audits, coverage uploads): never part of a build. */
const CHECKS = new Set([
  'eslint',
  'prettier',
  'standard',
  'xo',
  'tslint',
  'tsd',
  'attw',
  'publint',
  'size-limit',
  'aud',
  'depcheck',
  'evalmd',
  'markdownlint',
  'markdownlint-cli2',
  'knip',
  'biome',
  'oxlint',
  'oxfmt',
  'type-coverage',
  'check-dts',
  'echo',
  'exit',
  'true',
  'codecov',
  'coveralls',
  'nsp',
  'lockfile-lint',
  'license-checker',
  'ls-engines',
  'npmignore',
  'safe-publish-latest',
  'sort-package-json',
  'dtslint',
  'api-extractor',
  'remark',
  'stylelint',
  'jscs',
  'jshint',
  'eclint',
  'editorconfig-checker',
  'semistandard',
  'dependency-check',
  'madge',
  'are-the-types-wrong',
  'nyc',
  'c8',
  'git',
  'tsc-strict',
  // Type checkers that write nothing the tests load.
  'flow',
  'svelte-check',
]);
/**
 * Commands that write no file a test reads: they print (`TZ=UTC date`, `node --version`), wait, or
 * remove. A removal belongs to a build that writes something after it (`rimraf dist && tsc`); on
 * its own, or beside other such steps, it is no build.
 */
const PRINTS_ONLY = new Set([
  'date',
  'printf',
  'pwd',
  'ls',
  'cat',
  'whoami',
  'uname',
  'hostname',
  'id',
  'sleep',
  'which',
  'type',
  'env',
  'printenv',
  'test',
  '[',
  ':',
]);
const REMOVES = new Set(['rm', 'rimraf', 'del', 'del-cli', 'trash', 'shx']);
const printsVersion = (words: string[]) => words.length === 2 && /^(-v|--version)$/.test(words[1]!);
/** `cat a > dist/a`, `date > build-time.txt`: a step's output sent to a file writes that file. */
const writesAFile = (step: Step) => (step.redirects ?? []).some((redirect) => /^\d?(>>?|&>) (?!\/dev\/null$)/.test(redirect));
const writesNothing = (step: Step) => !writesAFile(step) && (PRINTS_ONLY.has(step.words[0] ?? '') || printsVersion(step.words));
const onlyRemoves = (steps: Step[]) =>
  steps.every((step) => REMOVES.has(step.words[0] ?? '') && (step.words[0] !== 'shx' || step.words[1] === 'rm'));

/** Commands that hand a task to every workspace package (the monorepo's own runner of scripts). */
const DELEGATES = new Set(['lerna', 'turbo', 'nx', 'wsrun', 'ultra']);
/** Environment that keeps installs from downloading browsers and binaries, which cannot be reached and are never needed. */
const OFFLINE_INSTALL: Array<[dependency: string, name: string, value: string]> = [
  ['puppeteer', 'PUPPETEER_SKIP_DOWNLOAD', '1'],
  ['playwright', 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD', '1'],
  ['@playwright/test', 'PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD', '1'],
  ['cypress', 'CYPRESS_INSTALL_BINARY', '0'],
  ['electron', 'ELECTRON_SKIP_BINARY_DOWNLOAD', '1'],
];
/** Subcommands of yarn and pnpm, which are never an installed binary's name. */
const PACKAGE_MANAGER_COMMANDS = new Set([
  'install',
  'i',
  'add',
  'remove',
  'rm',
  'audit',
  'run',
  'exec',
  'dlx',
  'why',
  'list',
  'ls',
  'outdated',
  'pack',
  'publish',
  'rebuild',
  'workspaces',
  'workspace',
  'recursive',
  'up',
  'upgrade',
  'link',
  'unlink',
  'info',
  'config',
  'dedupe',
  'prune',
  'store',
  'node',
  'constraints',
  'version',
  'init',
  'create',
  'import',
  'patch',
  'bin',
  'cache',
  'licenses',
  'check',
]);
/** Options of coverage wrappers that take a value, so the value is not taken for the wrapped command. */
const WRAPPER_OPTIONS_WITH_VALUE = new Set([
  '-r',
  '--reporter',
  '-i',
  '--require',
  '-e',
  '--extension',
  '-n',
  '--include',
  '-x',
  '--exclude',
  '-t',
  '--temp-dir',
  '--temp-directory',
  '--report-dir',
  '-o',
  '--reports-dir',
  '--cwd',
  '--lines',
  '--branches',
  '--functions',
  '--statements',
  '--src',
  '--nycrc-path',
  '--config',
  '-p',
  '--package',
  '-c',
  '--call',
]);

/** One command the test script runs, after following `npm run` and friends, with the environment it inherits. */
interface Step extends SimpleCommand {
  /** The script it was written in. */
  script: string;
  phase: 'pretest' | 'test';
}

/** What expanding a script reads from: the package.json scripts and the repository's files; `notes` collects what it could not follow. */
interface Expansion {
  scripts: Record<string, string>;
  facts: RepoFacts;
  /** The repository's package manager, whose rules say what a script call runs. */
  manager: InstalledManager;
  notes: string[];
}

function expandScript(
  context: Expansion,
  name: string,
  env: Record<string, string>,
  phase: Step['phase'],
  extra: string[],
  seen: Set<string>,
): Step[] {
  const script = context.scripts[name];
  if (script === undefined || seen.has(name)) return [];
  return expandCommands(context, parseScript(script), name, env, phase, extra, new Set(seen).add(name));
}

function expandCommands(
  context: Expansion,
  commands: SimpleCommand[],
  name: string,
  env: Record<string, string>,
  phase: Step['phase'],
  extra: string[],
  seen: Set<string>,
): Step[] {
  const { scripts } = context;
  return commands.flatMap((command, index) => {
    const unwrapped = withoutEnvironmentWrappers(command);
    const stepEnv = { ...env, ...unwrapped.env };
    const words = index === commands.length - 1 ? [...unwrapped.words, ...extra] : unwrapped.words;
    if (words[0] === 'concurrently') {
      return words
        .slice(1)
        .filter((word) => !word.startsWith('-'))
        .flatMap((part) => expandCommands(context, parseScript(part), name, stepEnv, phase, [], seen));
    }
    const step: Step = { env: stepEnv, words, redirects: command.redirects, script: name, phase };
    // `c8 npm run test-api`: a coverage wrapper's script call is followed; swesynth measures coverage itself.
    const call = scriptCall(words, scripts, context.manager) ?? scriptCall(unwrapTool(step).words, scripts, context.manager);
    if (!call) return followed(context, step, seen);
    return call.flatMap((run) => expandScript(context, run.name, stepEnv, phase, run.extra, seen));
  });
}

/**
 * A `make` call or a shell script, replaced by the commands it runs when they run the tests; one
 * that runs no runner (a build script) stays as it is written, to be run whole.
 */
function followed(context: Expansion, step: Step, seen: Set<string>): Step[] {
  const found = follow(step, context.facts);
  if (!found || seen.has(found.source)) return [step];
  if ('unread' in found) {
    context.notes.push(`\`${commandLine(step)}\` is run as written, not read: ${found.unread}`);
    return [step];
  }
  const inner = expandCommands(context, found.commands, found.source, step.env, step.phase, [], new Set(seen).add(found.source));
  const runsTests = inner.some((innerStep) => ['runner', 'delegate'].includes(classify(unwrapTool(innerStep)).kind));
  return runsTests ? inner : [step];
}

/** `cross-env A=1 cmd`, `env A=1 cmd`, `dotenv -e .env -- cmd`: the command, with what they set. */
function withoutEnvironmentWrappers(command: SimpleCommand): SimpleCommand {
  const env = { ...command.env };
  const words = [...command.words];
  for (;;) {
    const head = words[0];
    if (head === 'cross-env' || head === 'cross-env-shell' || head === 'env') {
      words.shift();
      while (words[0] !== undefined && /^[A-Za-z_]\w*=/.test(words[0])) {
        const [variable, ...value] = words.shift()!.split('=');
        env[variable!] = value.join('=');
      }
    } else if (head === 'dotenv' || head === 'dotenv-cli') {
      const end = words.indexOf('--');
      words.splice(0, end === -1 ? 1 : end + 1);
    } else {
      return { env, words };
    }
  }
}

/**
 * The command a step really starts: past `npx`, `pnpm exec`, coverage wrappers (`nyc`, `c8`),
 * `time`, and `node path/to/the/runner's/bin` (node's own options going to NODE_OPTIONS).
 */
function unwrapTool(step: Step): Step {
  const words = [...step.words];
  const env = { ...step.env };
  const skipOptions = () => {
    while (words[0]?.startsWith('-')) {
      const option = words.shift()!;
      if (!option.includes('=') && WRAPPER_OPTIONS_WITH_VALUE.has(option)) words.shift();
    }
  };
  for (;;) {
    const head = words[0] ?? '';
    if (head === 'npx' || head === 'bunx' || head === 'time') {
      words.shift();
      skipOptions();
    } else if ((head === 'pnpm' || head === 'yarn' || head === 'npm') && (words[1] === 'exec' || words[1] === 'dlx')) {
      words.splice(0, 2);
      skipOptions();
      if (words[0] === '--') words.shift();
    } else if (
      (head === 'nyc' || head === 'c8') &&
      words.length > 1 &&
      !['report', 'check-coverage', 'merge', 'instrument'].includes(words[1]!)
    ) {
      words.shift();
      skipOptions();
      if (words[0] === '--') words.shift();
    } else if ((head === 'istanbul' || head === 'isparta') && words[1] === 'cover') {
      // `istanbul cover _mocha -- -R spec`, `istanbul cover test/index.js`: a command, or a file Node.js runs.
      words.splice(0, 2);
      skipOptions();
      const [target = '', ...rest] = words;
      const passed = rest[0] === '--' ? rest.slice(1) : rest;
      words.splice(0, words.length, ...(/[/.]/.test(target) ? ['node', target] : [target]), ...passed);
    } else if (
      (head === 'pnpm' || head === 'yarn') &&
      /^[\w@][\w./@-]*$/.test(words[1] ?? '') &&
      !PACKAGE_MANAGER_COMMANDS.has(words[1]!)
    ) {
      // `yarn jest`: a package manager starts an installed binary that is not a script.
      words.shift();
    } else if (/node_modules\/\.bin\//.test(head)) {
      words[0] = basename(head);
    } else if (head === 'node' && !words.includes('--test')) {
      const script = words.findIndex((word, i) => i > 0 && !word.startsWith('-') && !WRAPPER_OPTIONS_WITH_VALUE.has(words[i - 1]!));
      const bin = script === -1 ? null : /node_modules\/(?:\.bin\/([\w.-]+)|((?:@[\w.-]+\/)?[\w.-]+)\/bin\/)/.exec(words[script]!);
      if (!bin) return { ...step, env, words };
      const nodeOptions = words.slice(1, script).join(' ');
      if (nodeOptions) env.NODE_OPTIONS = [env.NODE_OPTIONS, nodeOptions].filter(Boolean).join(' ');
      words.splice(0, script + 1, bin[1] ?? basename(bin[2]!));
    } else {
      return { ...step, env, words };
    }
  }
}

type StepKind =
  { kind: 'runner'; adapter: RunnerAdapter; invocation: RunnerInvocation } | { kind: 'check' } | { kind: 'delegate' } | { kind: 'build' };

function invocationOf(args: string[], adapter: RunnerAdapter): RunnerInvocation {
  const { optionsWithValue, managedOptions } = adapter.detection;
  const isManaged = (name: string) =>
    managedOptions.some((managed) => name === managed || name.startsWith(`${managed}.`) || name === `--no-${managed.replace(/^--/, '')}`);
  const options: string[] = [];
  const positional: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--') {
      positional.push(...args.slice(i + 1));
      break;
    }
    if (!word.startsWith('-') || word === '-') {
      positional.push(word);
      continue;
    }
    const name = word.split('=')[0]!;
    const value = !word.includes('=') && optionsWithValue.includes(name) && i + 1 < args.length ? args[++i]! : null;
    if (!isManaged(name)) options.push(word, ...(value === null ? [] : [value]));
  }
  return { options, positional };
}

function classify(step: Step): StepKind {
  const [head = '', ...rest] = step.words;
  for (const adapter of allRunners()) {
    const args = adapter.detection.recognize(step.words);
    if (args) return { kind: 'runner', adapter, invocation: invocationOf(args, adapter) };
  }
  if (DELEGATES.has(head) || head === 'npm' || head === 'pnpm' || head === 'yarn') {
    // `lerna run build` builds, `lerna run test` tests every package; npm subcommands other than scripts only check or publish.
    const task = rest.find((word) => !word.startsWith('-') && word !== 'run' && word !== 'run-many' && word !== 'exec');
    const everyPackage = rest.some((word) => /^(--workspaces?|-ws|-r|--recursive|--filter)/.test(word)) || rest[0] === 'workspaces';
    if (DELEGATES.has(head) || everyPackage) {
      // `pnpm -r exec node --test`: every package runs the command after `exec`, here a runner.
      const exec = rest.indexOf('exec');
      const runsRunner = exec !== -1 && classify({ ...step, words: rest.slice(exec + 1) }).kind === 'runner';
      return runsRunner || (task !== undefined && /test|spec/.test(task)) ? { kind: 'delegate' } : { kind: 'build' };
    }
    return { kind: 'check' };
  }
  // `tsc --noEmit`, `tsc --emitDeclarationOnly`: types checked or declared, no JavaScript the tests run.
  const typeCheckOnly =
    (head === 'tsc' || head === 'vue-tsc') && rest.some((word) => /^--(noEmit|emitDeclarationOnly)(=true)?$/.test(word));
  if (CHECKS.has(head) || typeCheckOnly || writesNothing(step) || head === '') return { kind: 'check' };
  return { kind: 'build' };
}

/** A tsconfig's text as JSON: tsconfig allows comments and trailing commas. */
function tsconfigJson(text: string): { extends?: unknown; compilerOptions?: Record<string, unknown> } | null {
  try {
    const json: unknown = JSON.parse(
      text
        .replace(/\/\*[\s\S]*?\*\/|("(?:\\.|[^"\\])*")|\/\/[^\n]*/g, (_comment, string?: string) => string ?? '')
        .replace(/,(\s*[}\]])/g, '$1'),
    );
    return typeof json === 'object' && json !== null ? json : null;
  } catch {
    return null;
  }
}

/**
 * Whether a step is a tsc run whose config (read through its relative `extends`) writes no
 * JavaScript: `noEmit` or `emitDeclarationOnly` (the same flags on the command line make it a check). JavaScript packages typed with JSDoc
 * build only their declarations: the tests never run what it writes, and a bug that breaks a type
 * would fail it.
 */
function writesNoJavaScript(step: Step, facts: RepoFacts): boolean {
  const [head = '', ...rest] = step.words;
  if (head !== 'tsc' && head !== 'vue-tsc') return false;
  const flag = rest.findIndex((word) => ['-p', '--project', '-b', '--build'].includes(word));
  const named = flag === -1 ? undefined : rest.slice(flag + 1).find((word) => !word.startsWith('-'));
  let path = named === undefined ? 'tsconfig.json' : /\.json$/.test(named) ? named : posix.join(named, 'tsconfig.json');
  for (let depth = 0; depth < 5; depth++) {
    const config = tsconfigJson(facts.read(posix.normalize(path)) ?? '');
    if (!config) return false;
    const options = config.compilerOptions ?? {};
    if (options.noEmit === true || options.emitDeclarationOnly === true) return true;
    if (options.noEmit === false || options.emitDeclarationOnly === false) return false;
    if (typeof config.extends !== 'string' || !config.extends.startsWith('.')) return false;
    path = posix.join(posix.dirname(path), /\.json$/.test(config.extends) ? config.extends : `${config.extends}.json`);
  }
  return false;
}

/** What a `prepare` script runs that builds nothing: git hooks, patches to dependencies. */
const NOT_BUILDS = new Set(['husky', 'simple-git-hooks', 'lefthook', 'patch-package', 'is-ci', 'git']);

/** Folders a repository's .gitignore names at its root: `dist`, `/lib/`. */
function ignoredFolders(facts: RepoFacts): Set<string> {
  const lines = (facts.read('.gitignore') ?? '').split('\n').map((line) => line.trim());
  return new Set(lines.filter((line) => /^\/?[\w.-]+\/?$/.test(line)).map((line) => line.replace(/^\/|\/$/g, '')));
}

/**
 * Whether a test file loads something the checkout does not hold: a relative path into a folder
 * .gitignore names, or one that is not there (before install); or a package (the repository's own,
 * by `require('..')`, or one of its workspace) whose entry files (main, module, exports)
 * are not there, unless the runner's config maps package names to sources itself; or, it or a
 * helper of its own folder that it imports, names a script in an ignored folder to run
 * (`resolve(__dirname, '../dist/cli.mjs')`). That is a build's output, and the build must run
 * again for each bug.
 */
function testsLoadBuiltFiles(facts: RepoFacts, tests: string[]): boolean {
  const ignored = ignoredFolders(facts);
  // TypeScript's sources import each other by their output's name (`./index.js` for index.ts).
  const typeScriptOf = (path: string) => path.replace(/\.([cm]?)js$/, '.$1ts');
  const exists = (path: string) =>
    ['', '.js', '.cjs', '.mjs', '/index.js', '.ts', '.tsx', '/index.ts'].some((suffix) => facts.read(`${path}${suffix}`) !== undefined) ||
    facts.read(typeScriptOf(path)) !== undefined ||
    facts.read(`${typeScriptOf(path)}x`) !== undefined;
  const unbuiltPackages = mapsPackagesToSources(facts) ? new Set<string>() : unbuiltPackageNames(facts);
  const packageName = (specifier: string) =>
    specifier
      .split('/')
      .slice(0, specifier.startsWith('@') ? 2 : 1)
      .join('/');
  return facts
    .glob(tests)
    .slice(0, 50)
    .some((file) => {
      const text = facts.read(file) ?? '';
      return (
        relativeSpecifiers(text).some((specifier) => {
          const path = posix.normalize(posix.join(posix.dirname(file), specifier)).replace(/\/$/, '');
          if (path.startsWith('..')) return false;
          const folder = path === '.' ? '' : path;
          // A package folder (`require('..')`) loads what its package.json names.
          if (facts.read(folder === '' ? 'package.json' : `${folder}/package.json`) !== undefined)
            return unbuiltPackage(facts, folder) !== null;
          return ignored.has(topFolder(path)) || !exists(path);
        }) ||
        importedModules(text).some((specifier) => unbuiltPackages.has(packageName(specifier))) ||
        [file, ...relativeImports(facts, file).filter((helper) => topFolder(helper) === topFolder(file))].some((named) =>
          namesIgnoredScript(facts.read(named) ?? '', named, ignored),
        )
      );
    });
}

const topFolder = (path: string) => path.split('/')[0] ?? '';

/** Folders a .gitignore names that hold no build's output. */
const NOT_BUILT_FOLDERS = new Set(['node_modules', 'coverage', '.nyc_output']);

/** Whether a file names, in a string, a script under an ignored folder by its path relative to the file (`'../../dist/cli.mjs'`). */
function namesIgnoredScript(text: string, file: string, ignored: Set<string>): boolean {
  return [...text.matchAll(/['"`](\.{1,2}\/[\w@./-]+\.[cm]?js)['"`]/g)].some(([, literal]) => {
    const folder = topFolder(posix.normalize(posix.join(posix.dirname(file), literal!)));
    return ignored.has(folder) && !NOT_BUILT_FOLDERS.has(folder);
  });
}

/** Whether the test files are a build's output: no file in the checkout matches, their TypeScript sources do (`test/*Tests.js` of `test/*Tests.ts`). */
function testsAreBuilt(facts: RepoFacts, tests: string[]): boolean {
  return facts.glob(tests).length === 0 && facts.glob(tests.map((glob) => glob.replace(/\.([cm]?)js$/, '.$1ts'))).length > 0;
}

/** Runner or bundler configs that can point a package's name at its sources (an alias, a module name mapper). */
const ALIASING_CONFIGS = /^(jest|vitest|vite)\.config\.[cm]?[jt]s$|^vitest\.workspace\.[cm]?[jt]s$/;

function mapsPackagesToSources(facts: RepoFacts): boolean {
  const texts = facts.rootFiles.filter((file) => ALIASING_CONFIGS.test(file)).map((file) => facts.read(file) ?? '');
  const packageJest = JSON.stringify(facts.packageJson.jest ?? {});
  return [...texts, packageJest].some((text) =>
    /\balias\b|tsconfigPaths|tsconfig-paths|moduleNameMapper["']?\s*:\s*\{\s*[^\s}]/.test(text),
  );
}

/** The package in `folder` ('' for the root), by name, when its entry files are not in the checkout: its build writes them. */
function unbuiltPackage(facts: RepoFacts, folder: string): string | null {
  const pkg = folder === '' ? facts.packageJson : parsePackageJson(facts.read(`${folder}/package.json`));
  const entries = entryFiles(pkg).map((entry) => posix.normalize(posix.join(folder || '.', entry)));
  return entries.length > 0 && !entries.some((entry) => facts.read(entry) !== undefined) ? (pkg.name ?? folder) : null;
}

/**
 * The names of the workspace's packages whose entry files the build writes. (Not the repository's
 * own name: a test that names it is as often a code sample in a string as an import.)
 */
function unbuiltPackageNames(facts: RepoFacts): Set<string> {
  const declared = facts.packageJson.workspaces;
  const globs = [
    ...(Array.isArray(declared) ? declared : (declared?.packages ?? [])),
    ...pnpmWorkspaceGlobs(facts.read('pnpm-workspace.yaml') ?? ''),
  ].filter((glob) => !glob.startsWith('!'));
  const folders = facts.glob(globs.map((glob) => `${glob.replace(/^\.\/|\/+$/g, '')}/package.json`)).map(posix.dirname);
  return new Set(folders.flatMap((folder) => unbuiltPackage(facts, folder) ?? []));
}

/** The files a package.json says Node.js or a bundler loads for the package itself: main, module, the exports of ".". */
function entryFiles(pkg: PackageJson): string[] {
  const exported = isObject(pkg.exports) && Object.keys(pkg.exports).some((key) => key.startsWith('.')) ? pkg.exports['.'] : pkg.exports;
  const leaves = (value: unknown): string[] =>
    typeof value === 'string'
      ? [value]
      : isObject(value)
        ? Object.entries(value).flatMap(([key, inner]) => (key === 'types' ? [] : leaves(inner)))
        : [];
  return [pkg.main, pkg.module, ...leaves(exported)].filter(
    (entry): entry is string => entry !== undefined && /\.[cm]?[jt]sx?$/.test(entry) && !/\.d\.[cm]?ts$/.test(entry),
  );
}

/**
 * The runner of a test script that calls none swesynth knows (`kcd-scripts test`): a runner the
 * package depends on, else the one whose config file is there (a tool kit installs the runner),
 * else one the workspace root depends on (installed there for every package), else the default.
 */
function fallbackRunner(facts: RepoFacts, workspaceRoot: RepoFacts | undefined): { adapter: RunnerAdapter; why: string } {
  const dependedOn = (dependencies: Record<string, string>) =>
    allRunners().find((adapter) =>
      [adapter.package, ...(adapter.alsoProvidedBy ?? [])].some((provider) => provider !== undefined && provider in dependencies),
    );
  const own = dependedOn(dependenciesOf(facts));
  if (own) return { adapter: own, why: `"${own.package}" is a dependency` };
  for (const adapter of allRunners()) {
    const config = adapter.detection.configFiles?.find((file) => facts.read(file) !== undefined);
    if (config) return { adapter, why: `its config file ${config} is there` };
  }
  const root = workspaceRoot && dependedOn(dependenciesOf(workspaceRoot));
  if (root) return { adapter: root, why: `"${root.package}" is a dependency of the workspace root` };
  return { adapter: allRunners()[0]!, why: 'the default' };
}

function dependenciesOf(facts: RepoFacts): Record<string, string> {
  return { ...facts.packageJson.dependencies, ...facts.packageJson.devDependencies };
}

/** What a file imports or requires: `from 'x'`, `import 'x'`, `import('x')`, `require('x')`. */
function specifiers(text: string): string[] {
  return [...text.matchAll(/(?:\brequire\(\s*|\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map(([, specifier]) => specifier!);
}

/** The modules a file imports or requires by name (not by relative path). */
export function importedModules(text: string): string[] {
  return specifiers(text).filter((specifier) => !specifier.startsWith('.'));
}

/** The paths a file imports or requires relative to itself (`./parse.js`, `../lib`). */
function relativeSpecifiers(text: string): string[] {
  return specifiers(text).filter((specifier) => /^\.{1,2}(\/|$)/.test(specifier));
}

/** The files a file loads by relative path (`import './parse.js'`, `require('./util')`), as Node.js finds them. */
function relativeImports(facts: RepoFacts, file: string): string[] {
  return relativeSpecifiers(facts.read(file) ?? '').flatMap((specifier) => {
    const path = posix.normalize(posix.join(posix.dirname(file), specifier));
    // TypeScript imports a module by its output's name (`./parse.js` for parse.ts).
    const candidates = ['', '.js', '.mjs', '.cjs', '.ts', '.mts', '/index.js', '/index.ts'].map((suffix) => `${path}${suffix}`);
    const found = [...candidates, path.replace(/\.([cm]?)js$/, '.$1ts')].find((candidate) => facts.read(candidate) !== undefined);
    return found === undefined ? [] : [found];
  });
}

/** How far an index file's imports are followed to the test files, and how many files are read at most. */
const INDEX_DEPTH = 3;
const INDEX_FILES = 200;

/**
 * The runner whose tests plain-script test files run when Node.js runs them (`node test.js`,
 * where test.js requires tape), the module that tells, and the test files: an index that loads
 * no runner but imports files that do (`import './parse.js'`) stands for those files, so that
 * each runs alone, as the files each bug reaches. Null when they load none.
 */
function selfRunningRunner(facts: RepoFacts, tests: string[]): { adapter: RunnerAdapter; module: string; files: string[] | null } | null {
  const entries = facts.glob(tests).slice(0, 20);
  for (const adapter of allRunners()) {
    const modules = adapter.detection.selfRunning?.modules ?? [];
    const loaded = (file: string) => modules.find((name) => importedModules(facts.read(file) ?? '').includes(name));
    const files = new Set<string>();
    let module: string | undefined;
    let throughIndex = false;
    for (const entry of entries) {
      // Breadth first from the entry: the files that load the runner, not followed further.
      const seen = new Set([entry]);
      for (let level = [entry], depth = 0; level.length > 0 && depth <= INDEX_DEPTH && seen.size < INDEX_FILES; depth++) {
        const next: string[] = [];
        for (const file of level) {
          const found = loaded(file);
          if (found) {
            module ??= found;
            files.add(file);
            if (file !== entry) throughIndex = true;
            continue;
          }
          const unseen = relativeImports(facts, file).filter((imported) => !seen.has(imported));
          for (const imported of unseen) seen.add(imported);
          next.push(...unseen);
        }
        level = next;
      }
    }
    if (module) return { adapter, module, files: throughIndex ? [...files].sort() : null };
  }
  return null;
}

/** The script that runs the suite: `test`, unless it is a placeholder (npm's, `echo no tests`) or absent. */
function testScriptOf(scripts: Record<string, string>): string | null {
  return TEST_SCRIPTS.find((name) => scripts[name] !== undefined && !runsNoTest(scripts[name]!)) ?? null;
}

interface RunnerCall {
  step: Step;
  adapter: RunnerAdapter;
  invocation: RunnerInvocation;
  index: number;
}

/**
 * The call that runs the suite. A call with no file arguments runs everything the runner's config
 * names, so the first such call wins (`jest src/a.test.js && jest --coverage`, and of
 * `vitest run && vitest run --config build.config.ts` the plain one); otherwise every call of
 * the first runner counts, their files together (`mocha test/a && mocha test/b`).
 */
function suiteCall(calls: RunnerCall[]): { call: RunnerCall; positional: string[] } | null {
  const whole = calls.filter((call) => call.invocation.positional.length === 0);
  if (whole.length > 0) return { call: whole[0]!, positional: [] };
  const first = calls[0];
  if (!first) return null;
  const same = calls.filter((call) => call.adapter === first.adapter);
  return { call: first, positional: [...new Set(same.flatMap((call) => call.invocation.positional))] };
}

/** The scripts an install runs in the repository itself. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepare'];
/** Node.js options that load a TypeScript hook (tsx, ts-node, a loader) rather than stripping types itself. */
const LOADER_OPTION = /^(-r|--require|--import|--loader|--experimental-loader)(=|$)/;

/** `node scripts/setup.ts`: a .ts file run by Node.js with no loader, which only a Node.js that strips types runs. */
function runsTypeScriptFile(step: Step): boolean {
  return (
    step.words[0] === 'node' && step.words.some((word) => /\.[cm]?ts$/.test(word)) && !step.words.some((word) => LOADER_OPTION.test(word))
  );
}

/**
 * The build as one command. Steps read out of a Makefile or a shell script ran, in the repository,
 * inside its package manager's script environment, where yarn 1 puts itself on the PATH for the
 * scripts that call it: `yarn exec` gives them the same.
 */
function underPackageManager(steps: Step[], scripts: Record<string, string>, install: string | null): string {
  const build = steps.map(commandLine).join(' && ');
  const yarnClassic = /^npx -y (?:--force )?yarn@1\S*/.exec(install ?? '')?.[0];
  const fromFiles = steps.some((step) => scripts[step.script] === undefined);
  return yarnClassic && fromFiles ? `${yarnClassic} exec -- sh -c ${commandLine({ env: {}, words: [build] })}` : build;
}

/**
 * A repo profile from what the repository runs: the test script parsed as a shell would, followed
 * through `npm run` and wrappers to the runner's call; its options kept with their values; the
 * runner's own config read for the test files; the steps before it (and `pretest`) as the build.
 * Every field is a suggestion for the user to review; `reasons` says where each came from.
 */
export function detect(facts: RepoFacts, workspaceRoot?: RepoFacts): Detection {
  const { packageJson } = facts;
  const scripts = packageJson.scripts ?? {};
  const dependencies = dependenciesOf(facts);
  const reasons: string[] = [];
  const testScript = testScriptOf(scripts);
  const { packageManager, install, why: managerWhy } = packageManagerOf(facts);
  // A workspace package's scripts run with the root's package manager.
  const manager = installedManager(workspaceRoot ? packageManagerOf(workspaceRoot).install : install);
  const context: Expansion = { scripts, facts, manager, notes: [] };
  const steps = testScript
    ? scriptRun(testScript, manager)
        .flatMap((run) => expandScript(context, run.name, {}, run.name === `pre${testScript}` ? 'pretest' : 'test', [], new Set()))
        .map(unwrapTool)
    : [];
  reasons.push(
    testScript ? `test script "${testScript}": ${scripts[testScript]}` : 'no test script: the runner comes from the dependencies',
    ...context.notes,
  );
  const kinds = steps.map(classify);
  const calls = steps.flatMap((step, index): RunnerCall[] => {
    const kind = kinds[index]!;
    return kind.kind === 'runner' && step.phase === 'test' ? [{ step, adapter: kind.adapter, invocation: kind.invocation, index }] : [];
  });
  const chosen = suiteCall(calls);

  const fallback = chosen ? null : fallbackRunner(facts, workspaceRoot);
  let adapter = chosen?.call.adapter ?? fallback!.adapter;
  const invocation: RunnerInvocation = chosen
    ? { options: chosen.call.invocation.options, positional: chosen.positional }
    : { options: [], positional: [] };
  reasons.push(
    chosen
      ? `runner ${adapter.name}: \`${commandLine(chosen.call.step)}\` (script "${chosen.call.step.script}")`
      : `runner ${adapter.name}: no runner call in the test script; ${fallback!.why}`,
  );
  const found = adapter.detection.tests(invocation, facts);
  const { source, args = [] } = found;
  let { tests } = found;
  reasons.push(`tests from ${source}: ${tests.join(', ')}${args.length > 0 ? ` (${args.join(' ')})` : ''}`);
  const selfRunning = adapter.detection.plainScripts ? selfRunningRunner(facts, tests) : null;
  if (selfRunning) {
    reasons.push(`runner ${selfRunning.adapter.name}: the test files run their own tests with "${selfRunning.module}"`);
    adapter = selfRunning.adapter;
    if (!adapter.detection.selfRunning!.nodeOptions) invocation.options = [];
    if (selfRunning.files) {
      reasons.push(`tests: the files ${tests.join(', ')} imports, which each run their own: ${selfRunning.files.join(', ')}`);
      tests = selfRunning.files;
    }
  }

  // The steps the suite needs first: pretest whole, and what the test script runs before the suite's call.
  const buildSteps = steps.filter((step, index) => {
    const kind = kinds[index]!.kind;
    // With no runner call found, the test script's own steps are what runs the tests, not a build.
    if (kind !== 'build' || writesNoJavaScript(step, facts)) return false;
    return step.phase === 'pretest' || (chosen !== null && index < chosen.call.index);
  });
  if (onlyRemoves(buildSteps)) buildSteps.length = 0;
  let build = buildSteps.length > 0 ? underPackageManager(buildSteps, scripts, install) : null;
  let buildRuns = buildSteps;
  if (build)
    reasons.push(`build: ${build} (run before the tests: ${[...new Set(buildSteps.map((step) => `"${step.script}"`))].join(', ')})`);
  // No build before the tests, but they load built output, or are built output themselves (compiled
  // from TypeScript beside them): what the install's `prepare` writes, else what the `build` (or
  // `compile`) script writes (the contributor runs it first, as the repository's CI does).
  const loadsBuilt = testsLoadBuiltFiles(facts, tests) || testsAreBuilt(facts, tests);
  for (const [name, why] of [
    ['prepare', 'the "prepare" script, which the install runs: the tests load files it writes'],
    ['build', 'the "build" script: the tests load files it writes, which nothing else before them does'],
    ['compile', 'the "compile" script: the tests load files it writes, which nothing else before them does'],
  ] as const) {
    if (build) break;
    if (scripts[name] === undefined) continue;
    const scriptSteps = scriptRun(name, manager)
      .flatMap((run) => expandScript(context, run.name, {}, 'pretest', [], new Set()))
      .map(unwrapTool)
      .filter((step) => classify(step).kind === 'build' && !NOT_BUILDS.has(step.words[0] ?? '') && !writesNoJavaScript(step, facts));
    if (scriptSteps.length === 0 || onlyRemoves(scriptSteps) || !loadsBuilt) continue;
    build = underPackageManager(scriptSteps, scripts, install);
    buildRuns = scriptSteps;
    reasons.push(`build: ${build} (${why})`);
  }
  const delegated = steps.filter((_, index) => kinds[index]!.kind === 'delegate').map(commandLine);
  if (delegated.length > 0) reasons.push(`the test script hands the tests to the workspace packages: ${delegated.join('; ')}`);

  // A test script that calls a runner the repository depends on nowhere counted on one installed
  // globally (once common): the install adds it where nothing else (a tool kit) put it there.
  const runnerPackage = chosen && !selfRunning && workspaceRoot === undefined ? adapter.package : undefined;
  const addsRunner =
    runnerPackage !== undefined &&
    adapter.newestMajor !== undefined &&
    ![runnerPackage, ...(adapter.alsoProvidedBy ?? [])].some((provider) => provider in dependencies) &&
    packageManager === 'npm' &&
    install !== null;
  const fullInstall = addsRunner
    ? `${install} && { test -e node_modules/${runnerPackage} || npm install --no-save ${runnerPackage}@${adapter.newestMajor}; }`
    : install;
  const notes = [managerWhy, addsRunner && `the repository depends on no ${runnerPackage}`].filter(Boolean);
  reasons.push(`install: ${fullInstall} (${[packageManager, ...notes].join('; ')})`);
  const env: Record<string, string> = { ...chosen?.call.step.env };
  for (const [dependency, name, value] of OFFLINE_INSTALL) if (dependency in dependencies) env[name] = value;

  // What the install runs (its lifecycle scripts), the build and the tests may run a .ts file with node.
  const installSteps = INSTALL_SCRIPTS.flatMap((name) => expandScript(context, name, {}, 'pretest', [], new Set()));
  const runsTypeScript = [...installSteps, ...steps, ...buildRuns].some(runsTypeScriptFile);
  if (runsTypeScript) reasons.push('node: a script runs a .ts file with node, which needs a Node.js that strips types');
  const profile: DetectedProfile = {
    node: profileNode(facts, undefined, { runsTypeScript }),
    packageManager,
    install: fullInstall,
    build,
    buildBeforeTests: build !== null,
    runner: adapter.name as RunnerName,
    runnerArgs: [...invocation.options, ...args],
    source: { include: [`**/*.${SOURCE_EXTENSIONS}`], exclude: NOT_SOURCE },
    tests: tests.length > 0 ? tests : adapter.detection.tests({ options: [], positional: [] }, facts).tests,
    env,
  };
  const configuredAtRoot = adapter.detection.configFiles?.some((file) => source === file) ?? false;
  return {
    profile,
    reasons,
    suiteFiles: chosen && chosen.positional.length > 0 ? profile.tests : [],
    callsRunner: chosen !== null || configuredAtRoot,
  };
}

export function detectProfile(facts: RepoFacts): DetectedProfile {
  return detect(facts).profile;
}
