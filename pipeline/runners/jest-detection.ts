import { isObject, readConfig } from '../repo/config-file.js';
import type { RepoFacts } from '../repo/facts.js';
import { filesMatching, normalizePath, stringList } from './detection.js';
import { recognizeBins } from './detection.js';
import type { RunnerDetection } from './types.js';

const HAS_GLOB = /[*?{[]/;
const DEFAULT_MATCH = ['**/__tests__/**/*.[jt]s?(x)', '**/?(*.)+(spec|test).[jt]s?(x)'];
const CONFIG_FILES = [
  'jest.config.js',
  'jest.config.ts',
  'jest.config.mjs',
  'jest.config.cjs',
  'jest.config.mts',
  'jest.config.cts',
  'jest.config.json',
];

/** The test globs of one jest config object (a project, or the whole config). */
function globsOf(config: Record<string, unknown>, facts: RepoFacts, prefix = ''): string[] {
  const rootDir = typeof config.rootDir === 'string' ? normalizePath(config.rootDir) : '';
  const base = [prefix, rootDir].filter((part) => part !== '' && part !== '.').join('/');
  const under = (path: string) => (base ? `${base}/${path}` : path);
  const regexes = stringList(config.testRegex);
  const ignored = ignoredPaths(config, base);
  if (regexes.length > 0) return filesMatching(facts, regexes).filter((file) => (!base || file.startsWith(`${base}/`)) && !ignored(file));
  const match = stringList(config.testMatch).map((pattern) => normalizePath(pattern));
  const patterns = match.length > 0 ? match : DEFAULT_MATCH;
  const roots = stringList(config.roots)
    .map(normalizePath)
    .filter((root) => root !== '' && root !== '.');
  // A pattern rooted in <rootDir> already names its folder; one starting with ** is looked for under each root.
  const globs =
    roots.length === 0
      ? patterns.map(under)
      : roots.flatMap((root) => patterns.map((pattern) => (pattern.startsWith('**/') ? under(`${root}/${pattern}`) : under(pattern))));
  // Globs cannot leave out what jest's ignore patterns do: the files they match, less the ignored ones, are the tests.
  return stringList(config.testPathIgnorePatterns).length === 0 ? globs : facts.glob(globs).filter((file) => !ignored(file));
}

/**
 * Whether a repository-relative file is left out by the config's testPathIgnorePatterns, regular
 * expressions over absolute paths in which <rootDir> stands for the config's folder.
 */
function ignoredPaths(config: Record<string, unknown>, base: string): (file: string) => boolean {
  const expressions = stringList(config.testPathIgnorePatterns).flatMap((pattern) => {
    try {
      return [new RegExp(pattern.replaceAll('<rootDir>', base ? `/${base}` : ''))];
    } catch {
      return [];
    }
  });
  return (file) => expressions.some((expression) => expression.test(`/${file}`));
}

export const jestDetection: RunnerDetection = {
  configFiles: CONFIG_FILES,
  recognize: recognizeBins(['jest']),
  optionsWithValue: [
    '-c',
    '--config',
    '--env',
    '--testEnvironment',
    '-t',
    '--testNamePattern',
    '--testPathPattern',
    '--testPathPatterns',
    '--testPathIgnorePatterns',
    '--rootDir',
    '--roots',
    '--selectProjects',
    '--ignoreProjects',
    '-w',
    '--maxWorkers',
    '--testTimeout',
    '--reporters',
    '--outputFile',
    '--coverageReporters',
    '--collectCoverageFrom',
    '--coverageDirectory',
    '--coverageProvider',
    '--shard',
    '--testMatch',
    '--testRegex',
    '--setupFiles',
    '--setupFilesAfterEnv',
    '--seed',
    '--testRunner',
    '--testSequencer',
    '--projects',
    '--globals',
    '--testEnvironmentOptions',
    '--changedSince',
  ],
  managedOptions: [
    '--coverage',
    '--collectCoverage',
    '--collect-coverage',
    '--watch',
    '--watchAll',
    '--reporters',
    '--json',
    '--outputFile',
    '--ci',
    '--bail',
    '-b',
    '--silent',
    '--verbose',
    '--color',
    '--colors',
    '--detectOpenHandles',
    '--forceExit',
    '--passWithNoTests',
    '--coverageReporters',
    '--coverageDirectory',
    '--collectCoverageFrom',
    '--coverageProvider',
    '--maxWorkers',
    '-w',
    '--testTimeout',
    '--shard',
    '--changedSince',
    '--onlyChanged',
    '-o',
    '--logHeapUsage',
    '--useStderr',
    '--cache',
    '--no-cache',
    '--clearCache',
    '--listTests',
  ],
  tests({ options, positional }, facts) {
    const configOption = options.findIndex((option) => option === '-c' || option === '--config' || option.startsWith('--config='));
    const named = configOption === -1 ? null : (options[configOption]!.split('=')[1] ?? options[configOption + 1] ?? null);
    const found =
      named !== null && !named.trim().startsWith('{')
        ? readConfig(facts, [normalizePath(named)])
        : (readConfig(facts, CONFIG_FILES) ?? pkgConfig(facts));
    const config = found && isObject(found.value) ? found.value : {};
    const allProjects = Array.isArray(config.projects) ? config.projects : [];
    // A project with a runner of its own (jest-runner-eslint, -tsc, -prettier) checks files rather than testing code.
    const projects = allProjects.filter(
      (project) => !isObject(project) || typeof project.runner !== 'string' || TEST_RUNNERS.has(project.runner),
    );
    let tests =
      allProjects.length > 0
        ? projects.flatMap((project) =>
            typeof project === 'string'
              ? folderProjectGlobs(normalizePath(project), config, facts)
              : isObject(project)
                ? globsOf(project, facts)
                : [],
          )
        : globsOf(config, facts);
    // Positional words are regular expressions over paths: they keep the configured files they match.
    if (positional.length > 0) tests = filesMatching(facts, positional, tests);
    const source = found ? `${found.file}${positional.length > 0 ? ` and the paths ${positional.join(' ')}` : ''}` : 'jest defaults';
    const selected = options.some((option) => option.startsWith('--selectProjects') || option.startsWith('--ignoreProjects'));
    const names = projects.map((project) => (isObject(project) ? displayNameOf(project.displayName) : null));
    if (projects.length === allProjects.length || selected || names.some((name) => name === null)) return { tests, source };
    return { tests, source, args: ['--selectProjects', ...(names as string[])] };
  },
};

/**
 * A project given as a folder: the root folder is the root config itself (less its projects), a
 * folder with a config of its own is that config, rooted there; any other folder (or a glob of
 * folders) tests with jest's defaults under it.
 */
function folderProjectGlobs(folder: string, rootConfig: Record<string, unknown>, facts: RepoFacts): string[] {
  if (folder === '' || folder === '.') return globsOf({ ...rootConfig, projects: undefined }, facts);
  const own = HAS_GLOB.test(folder)
    ? null
    : (readConfig(
        facts,
        CONFIG_FILES.map((file) => `${folder}/${file}`),
      ) ?? readConfig(facts, [`${folder}/package.json`], 'jest'));
  return globsOf(own && isObject(own.value) ? own.value : {}, facts, folder);
}

/** The runners a jest project tests code with: jest's own (the default), by their package names. */
const TEST_RUNNERS = new Set(['jest-runner', 'jest-circus', 'jest-jasmine2']);

/** A project's displayName, a string or `{ name, color }`; null when it has none. */
function displayNameOf(value: unknown): string | null {
  if (typeof value === 'string') return value;
  return isObject(value) && typeof value.name === 'string' ? value.name : null;
}

function pkgConfig(facts: RepoFacts) {
  return readConfig(facts, ['package.json'], 'jest');
}
