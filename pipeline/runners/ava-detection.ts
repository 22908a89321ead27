import { isObject, readConfig } from '../repo/config-file.js';
import { positionalTests, recognizeBins, stringList } from './detection.js';
import type { RunnerDetection } from './types.js';

const DEFAULT_FILES = [
  'test.{js,cjs,mjs}',
  'src/test.{js,cjs,mjs}',
  'source/test.{js,cjs,mjs}',
  '**/test-*.{js,cjs,mjs}',
  '**/*.spec.{js,cjs,mjs}',
  '**/*.test.{js,cjs,mjs}',
  '**/test/**/*.{js,cjs,mjs}',
  '**/tests/**/*.{js,cjs,mjs}',
  '**/__tests__/**/*.{js,cjs,mjs}',
];

export const avaDetection: RunnerDetection = {
  recognize: recognizeBins(['ava'], { other: ['reset-cache', 'debug'] }),
  optionsWithValue: ['-m', '--match', '-T', '--timeout', '-c', '--concurrency', '--config', '--node-arguments'],
  managedOptions: [
    '--tap',
    '-t',
    '--verbose',
    '-v',
    '--watch',
    '-w',
    '--fail-fast',
    '--color',
    '--no-color',
    '--reset-cache',
    '--timeout',
    '-T',
    '--update-snapshots',
    '-u',
    '-c',
    '--concurrency',
  ],
  tests({ positional }, facts) {
    const fromCommand = positionalTests(positional, ['**/*.{js,cjs,mjs,ts}']);
    if (fromCommand) return fromCommand;
    const found =
      readConfig(facts, ['ava.config.js', 'ava.config.cjs', 'ava.config.mjs'], 'files') ?? readConfig(facts, ['package.json'], 'ava');
    const files = found ? (isObject(found.value) ? stringList(found.value.files) : stringList(found.value)) : [];
    const included = files.filter((file) => !file.startsWith('!'));
    const excluded = files.filter((file) => file.startsWith('!'));
    if (included.length > 0) return { tests: [...included, ...excluded], source: `${found!.file} (files)` };
    return { tests: [...DEFAULT_FILES, ...excluded], source: 'ava defaults' };
  },
};
