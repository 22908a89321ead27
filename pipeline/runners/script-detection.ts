import { isFolder, normalizePath, positionalTests } from './detection.js';
import type { RepoFacts } from '../repo/facts.js';
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
/** A file that reads as a test: in a test folder, or named test, tests, spec (with or without `.js`) or *.test.* / *.spec.*. */
const TEST_FILE = /(^|\/)(tests?|specs?|__tests__)(\/|\.[cm]?[jt]s$|$)|[._-](test|spec)s?\.[cm]?[jt]s$/;

export const scriptDetection: RunnerDetection = {
  // `node [options] <test file> [arguments]`, where the file reads as a test (not a build script).
  recognize(words) {
    if (words[0] !== 'node' || words.includes('--test')) return null;
    const file = words.find((word, i) => i > 0 && !word.startsWith('-') && !NODE_OPTIONS_WITH_VALUE.includes(words[i - 1]!));
    return file !== undefined && TEST_FILE.test(file.replace(/^\.\//, '')) ? words.slice(1) : null;
  },
  optionsWithValue: NODE_OPTIONS_WITH_VALUE,
  managedOptions: ['--watch', '--watch-path', '--inspect', '--inspect-brk'],
  plainScripts: true,
  tests({ positional }, facts) {
    return (
      positionalTests(
        positional.map((path) => entryOf(path, facts)),
        ['**/*.{js,cjs,mjs}'],
      ) ?? { tests: ['test.js', 'test/index.js'], source: 'script defaults' }
    );
  },
};

/**
 * The file `node <path>` runs, as Node.js finds its entry point: the file itself, or with `.js`
 * added (`node test/test` runs test/test.js), or the folder's index.js; any other path as it is.
 */
function entryOf(path: string, facts: RepoFacts): string {
  const bare = normalizePath(path);
  if (!isFolder(bare)) return path;
  const found = facts.glob([bare, `${bare}.js`, `${bare}/index.js`]);
  // A file with no extension (a folder matches too, and has files under it).
  if (found.includes(bare) && facts.glob([`${bare}/*`]).length === 0) return path;
  return [`${bare}.js`, `${bare}/index.js`].find((file) => found.includes(file)) ?? path;
}
