import { EXPECT_MATCHERS } from './expect-matchers.js';
import { jasmineDetection } from './jasmine-detection.js';
import { parseJsonLines } from './json-lines.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';

/**
 * Jasmine 3 to 5, with the repository's own config (spec/support/jasmine.json), through
 * swesynth's preload (jasmine-preload.cjs): it loads each spec file on its own, so that one that
 * throws is a `(file)` error beside the others' results, runs the specs in the order they are
 * written, and reports each spec with its file and describe path. Jasmine loads every file into
 * one process.
 */
export const jasmine: RunnerAdapter = {
  name: 'jasmine',
  detection: jasmineDetection,
  vocabulary: { modules: [], testFunctions: ['it'], assertions: [], expectations: ['expect'], nodeAssert: EXPECT_MATCHERS },
  package: 'jasmine',
  newestMajor: 5,
  isolatesFiles: false,
  command(request) {
    const { testFiles, only, args, reportFile, tools } = request;
    return {
      // node runs the repository's own jasmine, with the preload in its process.
      file: tools.node,
      args: [
        tools.runnerFile('run-bin.cjs'),
        tools.runnerFile('jasmine-preload.cjs'),
        'jasmine',
        ...args,
        // Files on the command line take the place of the config's spec_files; its helpers still load.
        ...(only ?? testFiles),
      ],
      // A spec's own timeout fires before the process is killed, so an async hang is reported as such.
      env: { SWESYNTH_JASMINE_REPORT: reportFile, SWESYNTH_JASMINE_TIMEOUT: String(testTimeoutOf(request)) },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
