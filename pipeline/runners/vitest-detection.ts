import { isObject, readConfig } from '../repo/config-file.js';
import { normalizePath, recognizeBins, stringList } from './detection.js';
import type { RunnerDetection } from './types.js';

const DEFAULT_INCLUDE = ['**/*.{test,spec}.?(c|m)[jt]s?(x)'];
const CONFIG_FILES = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs'].flatMap((extension) => [
  `vitest.config.${extension}`,
  `vite.config.${extension}`,
]);

/**
 * The files of the projects a config declares inline (`test.projects`, or `test.workspace` before
 * vitest 3.2), each project's `test.include` or the default; none when a project is named by a
 * path, whose config is elsewhere.
 */
function projectIncludes(config: Record<string, unknown>): string[] {
  const projects = config.projects ?? config.workspace;
  if (!Array.isArray(projects) || projects.length === 0 || !projects.every(isObject)) return [];
  const includes = projects.flatMap((project) => {
    const own = isObject(project.test) ? stringList(project.test.include) : [];
    return own.length > 0 ? own : DEFAULT_INCLUDE;
  });
  return [...new Set(includes)];
}

export const vitestDetection: RunnerDetection = {
  configFiles: CONFIG_FILES.filter((file) => file.startsWith('vitest.')),
  recognize: recognizeBins(['vitest'], { runs: ['run', 'watch', 'dev'], other: ['bench', 'typecheck', 'init', 'list'] }),
  optionsWithValue: [
    '-c',
    '--config',
    '-r',
    '--root',
    '--dir',
    '--environment',
    '--pool',
    '--project',
    '--reporter',
    '--outputFile',
    '--testTimeout',
    '--hookTimeout',
    '--exclude',
    '--mode',
    '--maxWorkers',
    '--minWorkers',
    '--shard',
    '-t',
    '--testNamePattern',
    '--maxConcurrency',
  ],
  managedOptions: [
    '--coverage',
    '--watch',
    '-w',
    '--run',
    '--reporter',
    '--outputFile',
    '--silent',
    '--bail',
    '--passWithNoTests',
    '--ui',
    '--open',
    '--no-watch',
    '--maxWorkers',
    '--minWorkers',
    '--shard',
    '--testTimeout',
    '--hookTimeout',
    '--allowOnly',
    '--changed',
    '--color',
    '--no-color',
    '--typecheck',
    '--logHeapUsage',
  ],
  tests({ options, positional }, facts) {
    const configOption = options.findIndex((option) => option === '-c' || option === '--config' || option.startsWith('--config='));
    const named = configOption === -1 ? null : (options[configOption]!.split('=')[1] ?? options[configOption + 1] ?? null);
    const found = readConfig(facts, named ? [normalizePath(named)] : CONFIG_FILES, 'test');
    const config = found && isObject(found.value) ? found.value : {};
    const dirOption = options.findIndex((option) => option === '--dir' || option.startsWith('--dir='));
    const dir = dirOption === -1 ? (config.dir ?? config.root) : (options[dirOption]!.split('=')[1] ?? options[dirOption + 1]);
    const base = typeof dir === 'string' ? normalizePath(dir) : '';
    const under = (pattern: string) => (base && base !== '.' ? `${base}/${normalizePath(pattern)}` : normalizePath(pattern));
    const include = stringList(config.include);
    if (include.length === 0) include.push(...projectIncludes(config));
    const excluded = stringList(config.exclude)
      .filter((pattern) => !pattern.includes('node_modules'))
      .map((pattern) => `!${under(pattern)}`);
    let tests = [...(include.length > 0 ? include : DEFAULT_INCLUDE).map(under), ...excluded];
    // Positional words filter the included files by path.
    const filtered =
      positional.length > 0 ? facts.glob(tests).filter((file) => positional.some((filter) => file.includes(normalizePath(filter)))) : [];
    if (filtered.length > 0) tests = filtered;
    const read = stringList(config.include).length > 0 || include.length === 0 ? 'test.include' : 'the include of each of test.projects';
    return { tests, source: found ? `${found.file} (${read}${excluded.length > 0 ? ', test.exclude' : ''})` : 'vitest defaults' };
  },
};
