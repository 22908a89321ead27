import { parseJsonLines } from './json-lines.js';
import { nodeunitDetection } from './nodeunit-detection.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';

/**
 * nodeunit 0.9 to 0.11, through swesynth's reporter (nodeunit-reporter.cjs), which nodeunit's
 * command line loads with `--reporter <file>`: it loads each test file on its own, so that one
 * that throws is a `(file)` error beside the others' results, runs its exported tests with the
 * repository's nodeunit, and writes a JSON line per test with its group path. nodeunit has no
 * timeout and no skipped tests: the reporter gives each test swesynth's timeout. Every file
 * loads into one process.
 */
export const nodeunit: RunnerAdapter = {
  name: 'nodeunit',
  detection: nodeunitDetection,
  // Tests are exported functions given `test`, whose methods assert: `test.equal(actual, expected)`.
  vocabulary: {
    modules: ['nodeunit'],
    testFunctions: [],
    assertions: [
      'equal',
      'equals',
      'strictEqual',
      'deepEqual',
      'same',
      'notEqual',
      'notStrictEqual',
      'notDeepEqual',
      'ok',
      'throws',
      'doesNotThrow',
    ],
    expectations: [],
  },
  package: 'nodeunit',
  newestMajor: 0,
  isolatesFiles: false,
  command(request) {
    const { testFiles, only, args, reportFile, tools } = request;
    return {
      file: 'node_modules/.bin/nodeunit',
      args: [...args, '--reporter', tools.runnerFile('nodeunit-reporter.cjs'), ...(only ?? testFiles)],
      env: { SWESYNTH_NODEUNIT_REPORT: reportFile, SWESYNTH_NODEUNIT_TIMEOUT: String(testTimeoutOf(request)) },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
