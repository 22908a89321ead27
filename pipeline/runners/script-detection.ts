import { positionalTests } from './detection.js';
import type { RunnerDetection } from './types.js';

/** Node.js options that take the next word as their value. */
const NODE_OPTIONS_WITH_VALUE = [
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '--env-file',
  '-C',
  '--conditions',
  '--input-type',
];
/** A file that reads as a test: in a test folder, or named test, tests, spec or *.test.* / *.spec.*. */
const TEST_FILE = /(^|\/)(tests?|specs?|__tests__)(\/|\.[cm]?[jt]s$)|[._-](test|spec)s?\.[cm]?[jt]s$/;

export const scriptDetection: RunnerDetection = {
  // `node [options] <test file> [arguments]`, where the file reads as a test (not a build script).
  recognize(words) {
    if (words[0] !== 'node' || words.includes('--test')) return null;
    const file = words.find((word, i) => i > 0 && !word.startsWith('-') && !NODE_OPTIONS_WITH_VALUE.includes(words[i - 1]!));
    return file !== undefined && TEST_FILE.test(file.replace(/^\.\//, '')) ? words.slice(1) : null;
  },
  optionsWithValue: NODE_OPTIONS_WITH_VALUE,
  managedOptions: ['--watch', '--watch-path', '--inspect', '--inspect-brk'],
  tests({ positional }) {
    return positionalTests(positional, ['**/*.{js,cjs,mjs}']) ?? { tests: ['test.js', 'test/index.js'], source: 'script defaults' };
  },
};
