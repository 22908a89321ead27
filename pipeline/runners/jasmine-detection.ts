import { isObject, readConfig } from '../repo/config-file.js';
import { normalizePath, positionalTests, recognizeBins, stringList } from './detection.js';
import type { RunnerDetection } from './types.js';

/** Where jasmine looks for its config without `--config=`: the JSON one since jasmine 2, the module ones since 4. */
const CONFIG_FILES = ['spec/support/jasmine.json', 'spec/support/jasmine.mjs', 'spec/support/jasmine.js'];
/** Jasmine's own defaults, as `jasmine init` writes them. */
const DEFAULT_SPEC_DIR = 'spec';
const DEFAULT_SPEC_FILES = ['**/*[sS]pec.?(m)js'];

export const jasmineDetection: RunnerDetection = {
  configFiles: CONFIG_FILES,
  recognize: recognizeBins(['jasmine'], { other: ['init', 'examples', 'help', 'version', '-h', '--help', '-v', '--version'] }),
  // Jasmine's options take their values after `=`.
  optionsWithValue: [],
  managedOptions: [
    '--reporter',
    '--parallel',
    '--fail-fast',
    '--random',
    '--seed',
    '--color',
    '--no-color',
    '--verbose',
    '--filter',
    '--filter-path',
  ],
  tests({ options, positional }, facts) {
    const fromCommand = positionalTests(positional, ['**/*.{js,cjs,mjs}']);
    if (fromCommand) return fromCommand;
    const configName = options.find((option) => option.startsWith('--config='))?.slice('--config='.length);
    const found = readConfig(facts, configName ? [configName] : CONFIG_FILES);
    const config = found && isObject(found.value) ? found.value : {};
    const specDir = typeof config.spec_dir === 'string' ? normalizePath(config.spec_dir) : DEFAULT_SPEC_DIR;
    const written = stringList(config.spec_files);
    const under = (pattern: string) => (specDir === '' || specDir === '.' ? pattern : `${specDir}/${pattern}`);
    // An exclusion (`!pattern`) is relative to spec_dir too.
    const tests = (written.length > 0 ? written : DEFAULT_SPEC_FILES).map((pattern) =>
      pattern.startsWith('!') ? `!${under(pattern.slice(1))}` : under(pattern),
    );
    return {
      tests,
      source: found && written.length > 0 ? `${found.file} (spec_dir, spec_files)` : 'jasmine defaults (spec/**/*[sS]pec.?(m)js)',
    };
  },
};
