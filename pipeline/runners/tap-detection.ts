import { isObject, readConfig } from '../repo/config-file.js';
import { positionalTests, recognizeBins, stringList } from './detection.js';
import type { RunnerDetection } from './types.js';

const IN_FOLDER = ['**/*.{js,cjs,mjs,ts,cts,mts,jsx,tsx}'];

export const tapDetection: RunnerDetection = {
  recognize: recognizeBins(['tap'], {
    runs: ['run'],
    other: ['report', 'replay', 'plugin', 'build', 'version', 'versions', 'config', 'list'],
  }),
  optionsWithValue: [
    '-R',
    '--reporter',
    '-t',
    '--timeout',
    '-j',
    '--jobs',
    '--node-arg',
    '--nyc-arg',
    '--test-arg',
    '--test-env',
    '--before',
    '--after',
    '-o',
    '--output-file',
    '--output-dir',
    '--coverage-report',
    '--files',
    '-i',
    '--include',
    '--exclude',
    '--plugin',
    '--test-regex',
    '--test-ignore',
    '--grep',
    '-g',
    '--save',
    '-s',
    '--reporter-arg',
  ],
  managedOptions: [
    '-R',
    '--reporter',
    '--reporter-arg',
    '--coverage',
    '--no-coverage',
    '--cov',
    '--no-cov',
    '--check-coverage',
    '--no-check-coverage',
    '--coverage-report',
    '--100',
    '--branches',
    '--lines',
    '--functions',
    '--statements',
    '-o',
    '--output-file',
    '--output-dir',
    '--watch',
    '-w',
    '--bail',
    '-b',
    '--color',
    '-c',
    '--no-color',
    '--allow-incomplete-coverage',
    '--allow-empty-coverage',
    '--disable-coverage',
    '--show-full-coverage',
    '-j',
    '--jobs',
    '--save',
    '-s',
    '-t',
    '--timeout',
  ],
  selfRunning: { modules: ['tap'], nodeOptions: false },
  tests({ positional }, facts) {
    const fromCommand = positionalTests(positional, IN_FOLDER);
    if (fromCommand) return fromCommand;
    const found =
      readConfig(facts, ['.taprc'], 'files') ?? readConfig(facts, ['.taprc'], 'include') ?? readConfig(facts, ['package.json'], 'tap');
    const files = found
      ? isObject(found.value)
        ? [...stringList(found.value.files), ...stringList(found.value.include)]
        : stringList(found.value)
      : [];
    if (files.length > 0) return positionalTests(files, IN_FOLDER) ?? { tests: files, source: found!.file };
    // Snapshots tap writes (tap-snapshots/test/x.js.test.cjs) look like tests and are not.
    const tests = [
      'test/**/*.{js,cjs,mjs,ts,cts,mts}',
      'tests/**/*.{js,cjs,mjs,ts,cts,mts}',
      '**/*.{test,spec}.{js,cjs,mjs,ts,cts,mts}',
      '!tap-snapshots/**',
    ];
    return { tests, source: 'tap defaults' };
  },
};
