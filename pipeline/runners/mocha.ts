import { CHAI_ASSERTIONS, CHAI_CHAIN_WORDS } from './expect-matchers.js';
import { parseJsonLines } from './json-lines.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { exactly, fullNames } from './skip.js';
import { majorOf } from './version.js';
import { mochaDetection } from './mocha-detection.js';

/**
 * Mocha, through the repository's own binary and its config (.mocharc, package.json "mocha"),
 * with swesynth's reporter. Mocha adds its config's spec to the files it is given: the whole
 * suite is that spec together with the repository's test files, and a list of files to run is
 * enforced by the reporter, which drops the others before they load. It speaks to mocha 3 and later:
 * mocha 5's options parser refuses what it does not know, so each option goes only to the majors that have it.
 */
export const mocha: RunnerAdapter = {
  name: 'mocha',
  detection: mochaDetection,
  vocabulary: {
    modules: ['mocha'],
    testFunctions: ['it', 'test'],
    assertions: [],
    expectations: [],
    // mocha leaves assertions to a library; should.js and chai's should check the value before `.should`.
    expectationProperties: ['should'],
    nodeAssert: CHAI_ASSERTIONS,
    chainWords: CHAI_CHAIN_WORDS,
  },
  package: 'mocha',
  newestMajor: 11,
  isolatesFiles: false,
  warmServer: 'mocha-warm.cjs',
  warmCoverage: true,
  warmTrial: true,
  // Mocha 3 and 5 have no command line to call in-process.
  warmsVersion: (version) => (majorOf(version) ?? 0) >= 6,
  skipsTests: true,
  command(request) {
    const { testFiles, only, args, skip = [], reportFile, bail, tools, version } = request;
    const major = majorOf(version) ?? Infinity;
    return {
      file: 'node_modules/.bin/mocha',
      args: [
        '--reporter',
        tools.runnerFile('mocha-reporter.cjs'),
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        '--timeout',
        String(testTimeoutOf(request)),
        // Ends the process when the run is over: a handle left open (a timer) must not turn it into a hang.
        // Mocha 3 does so by itself, and knows no --exit.
        ...(major >= 4 ? ['--exit'] : []),
        // The repository's config may ask for these; both would leave tests unreported. Parallel
        // runs came with mocha 8, and mocha 5 cannot turn bail off (only its mocha.opts can turn it on).
        ...(major >= 8 ? ['--no-parallel'] : []),
        ...(bail ? ['--bail'] : major >= 6 ? ['--no-bail'] : []),
        // Mocha leaves out the tests whose full title (suite titles and title, joined by spaces) matches.
        ...(skip.length > 0 ? ['--grep', exactly(fullNames(skip, ' ')), '--invert'] : []),
        ...args,
        ...(only ?? testFiles),
      ],
      env: { SWESYNTH_MOCHA_REPORT: reportFile, ...(only ? { SWESYNTH_MOCHA_ONLY: JSON.stringify(only) } : {}) },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
