import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXPECT_MATCHERS, MOCK_HELPERS, MOCK_MATCHERS } from './expect-matchers.js';
import { parseJestJson } from './jest-json.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { allBut, fullNames } from './skip.js';
import { jestDetection } from './jest-detection.js';
import { majorOf } from './version.js';

/** `--testTimeout` came with jest 24.9; a major does not tell 24.9 from an earlier 24, which rejects it. */
const supportsTestTimeout = (major: number | null) => major === null || major >= 25;

/**
 * Where jest keeps its transform cache unless told otherwise, on the machine's temp folder: a
 * sandbox's own temp folder is emptied between runs, and a cold cache would transform every file again.
 */
const CACHE_DIRECTORY = join(tmpdir(), `jest_${(process.getuid?.() ?? 0).toString(36)}`);

/** Jest 22 to 30, with the repository's own config; it reports through its built-in JSON report. */
export const jest: RunnerAdapter = {
  name: 'jest',
  detection: jestDetection,
  vocabulary: {
    modules: ['@jest/globals'],
    testFunctions: ['it', 'test'],
    assertions: [],
    expectations: ['expect'],
    nodeAssert: { ...EXPECT_MATCHERS, ...MOCK_MATCHERS },
    nodeHelpers: MOCK_HELPERS,
    globals: ['jest'],
  },
  package: 'jest',
  // Repositories of jest 22's day often depend on its command line alone, whose version is jest's.
  alsoProvidedBy: ['jest-cli'],
  newestMajor: 30,
  isolatesFiles: true,
  skipsTests: true,
  findsTestFiles: true,
  warmServer: 'jest-warm.cjs',
  warmCoverage: true,
  command(request) {
    const { only, args, skip = [], reportFile, version } = request;
    return {
      file: 'node_modules/.bin/jest',
      args: [
        // CI mode fails a test whose snapshot is missing instead of writing one into the repository.
        '--ci',
        '--json',
        `--outputFile=${reportFile}`,
        // Jest's own console reporter in place of the repository's (which may write files into it).
        '--reporters=default',
        '--coverage=false',
        '--watchAll=false',
        `--cacheDirectory=${CACHE_DIRECTORY}`,
        // The repository's config may ask to bail out, which would leave tests unreported.
        '--no-bail',
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        ...(supportsTestTimeout(majorOf(version)) ? [`--testTimeout=${testTimeoutOf(request)}`] : []),
        // Jest waits for handles a test left open (a timer, a socket) before it exits; the report is written by then.
        '--forceExit',
        // Jest runs the tests whose full name (describe titles and title, joined by spaces) matches.
        ...(skip.length > 0 ? [`--testNamePattern=${allBut(fullNames(skip, ' '))}`] : []),
        ...args,
        // Paths, not the regular expressions jest otherwise takes file arguments for.
        ...(only ? ['--runTestsByPath', ...only] : []),
      ],
    };
  },
  parse: parseJestJson,
  reportFormat: 'jest-json',
};
