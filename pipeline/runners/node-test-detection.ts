import { positionalTests } from './detection.js';
import type { RunnerDetection } from './types.js';

const DEFAULT_FILES = [
  '**/*.test.?(c|m)js',
  '**/*-test.?(c|m)js',
  '**/*_test.?(c|m)js',
  '**/test-*.?(c|m)js',
  '**/test.?(c|m)js',
  '**/test/**/*.?(c|m)js',
];

export const nodeTestDetection: RunnerDetection = {
  // `node [options] --test [options] [files]`: every word but node and --test is the runner's.
  recognize: (words) => (words[0] === 'node' && words.includes('--test') ? words.slice(1).filter((word) => word !== '--test') : null),
  optionsWithValue: [
    '--import',
    '--require',
    '-r',
    '--loader',
    '--experimental-loader',
    '--test-reporter',
    '--test-reporter-destination',
    '--test-name-pattern',
    '--test-skip-pattern',
    '--test-concurrency',
    '--test-timeout',
    '--test-shard',
    '--env-file',
    '--conditions',
    '-C',
    '--test-coverage-include',
    '--test-coverage-exclude',
    '--test-isolation',
    '--watch-path',
    '--test-coverage-lines',
    '--test-coverage-branches',
    '--test-coverage-functions',
  ],
  managedOptions: [
    '--test-reporter',
    '--test-reporter-destination',
    '--experimental-test-coverage',
    '--test-coverage-include',
    '--test-coverage-exclude',
    '--test-coverage-lines',
    '--test-coverage-branches',
    '--test-coverage-functions',
    '--watch',
    '--watch-path',
    '--test-timeout',
    '--test-concurrency',
    '--test-shard',
  ],
  selfRunning: { modules: ['node:test'], nodeOptions: true },
  tests({ positional }) {
    const inFolder = DEFAULT_FILES.map((pattern) => pattern.replace(/^\*\*\//, '**/'));
    return positionalTests(positional, inFolder) ?? { tests: DEFAULT_FILES, source: 'node --test defaults' };
  },
};
