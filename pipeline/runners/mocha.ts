import { parseJsonLines } from './json-lines.js';
import type { RunnerAdapter } from './types.js';
import { mochaDetection } from './mocha-detection.js';

/**
 * Mocha, through the repository's own binary and its config (.mocharc, package.json "mocha"),
 * with swesynth's reporter. Mocha adds its config's spec to the files it is given: the whole
 * suite is that spec together with the repository's test files, and a list of files to run is
 * enforced by the reporter, which drops the others before they load.
 */
export const mocha: RunnerAdapter = {
  name: 'mocha',
  detection: mochaDetection,
  package: 'mocha',
  isolatesFiles: false,
  command({ testFiles, only, args, reportFile, timeoutMs, tools }) {
    return {
      file: 'node_modules/.bin/mocha',
      args: [
        '--reporter',
        tools.runnerFile('mocha-reporter.cjs'),
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        '--timeout',
        String(Math.floor(timeoutMs * 0.8)),
        // Ends the process when the run is over: a handle left open (a timer) must not turn it into a hang.
        '--exit',
        // The repository's config may ask for these; both would leave tests unreported.
        '--no-parallel',
        '--no-bail',
        ...args,
        ...(only ?? testFiles),
      ],
      env: { SWESYNTH_MOCHA_REPORT: reportFile, ...(only ? { SWESYNTH_MOCHA_ONLY: JSON.stringify(only) } : {}) },
    };
  },
  parse: parseJsonLines,
};
