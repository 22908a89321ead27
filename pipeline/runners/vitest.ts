import { CHAI_ASSERTIONS, CHAI_CHAIN_WORDS, EXPECT_MATCHERS, MOCK_HELPERS, MOCK_MATCHERS } from './expect-matchers.js';
import { parseJestJson } from './jest-json.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { allBut, fullNames } from './skip.js';
import { vitestDetection } from './vitest-detection.js';
import { isAtLeast, majorOf } from './version.js';

/**
 * Vitest 1.3 typed its command line's options. Before it, a hook's timeout comes from the config
 * only (the flag is rejected), and a flag's text is kept as it is, where 'false' is true; a
 * number is read as one.
 */
const typedOptions = (version: string | null) => isAtLeast(version, 1, 3);
const coverageOff = (version: string | null) => `--coverage.enabled=${typedOptions(version) ? false : 0}`;

/**
 * Vitest 0.34 to 4, with the repository's own config. Its built-in JSON report leaves out what a
 * failure needs (the class and stack of an error that broke a file, a timeout's message, the
 * expected and actual values), so swesynth's reporter writes the same shape with them.
 */
export const vitest: RunnerAdapter = {
  name: 'vitest',
  detection: vitestDetection,
  vocabulary: {
    modules: ['vitest'],
    testFunctions: ['it', 'test'],
    assertions: [],
    expectations: ['expect'],
    // vitest's expect has jest's matchers and chai's chains.
    nodeAssert: { ...CHAI_ASSERTIONS, ...EXPECT_MATCHERS, ...MOCK_MATCHERS },
    nodeHelpers: MOCK_HELPERS,
    globals: ['vi'],
    chainWords: CHAI_CHAIN_WORDS,
  },
  package: 'vitest',
  newestMajor: 4,
  isolatesFiles: true,
  skipsTests: true,
  findsTestFiles: true,
  warmServer: 'vitest-warm.mjs',
  command(request) {
    const { only, args, skip = [], reportFile, tools, version } = request;
    // Tests' and hooks' own timeouts fire before the process is killed, so an async hang is reported as such.
    const timeout = testTimeoutOf(request);
    const major = majorOf(version);
    return {
      file: 'node_modules/.bin/vitest',
      args: [
        'run',
        // In place of the repository's reporters: the default one's output explains a run that went wrong.
        '--reporter=default',
        `--reporter=${tools.runnerFile('vitest-reporter.mjs')}`,
        `--outputFile=${reportFile}`,
        coverageOff(version),
        // The repository's config may ask to bail out, which would leave tests unreported.
        '--bail=0',
        `--testTimeout=${timeout}`,
        ...(typedOptions(version) ? [`--hookTimeout=${timeout}`] : []),
        // Vitest runs the tests whose full name matches: titles joined by spaces, by ' > ' from vitest 5.
        ...(skip.length > 0 ? [`--testNamePattern=${allBut(fullNames(skip, (major ?? 0) >= 5 ? ' > ' : ' '))}`] : []),
        ...args,
        // Vitest takes file arguments as filters on its configured test files.
        ...(only ?? []),
      ],
    };
  },
  parse: parseJestJson,
  reportFormat: 'jest-json',
};
