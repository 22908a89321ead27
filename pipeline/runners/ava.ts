import { readReport } from './ava-report.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { avaDetection } from './ava-detection.js';

/**
 * ava 3 to 6, through its TAP reporter as swesynth's preload (ava-preload.mjs) adjusts it: a marker
 * before each test line names the test's file. ava has no nesting and no two tests of a file may
 * share a title, so a test's title path is its title as written (`math › adds` stays one title);
 * its file is its only grouping. A crash of a file (a load error, an uncaught exception, a worker
 * that exits) is one `(file)` result with status 'error'; the tests pending when ava's inactivity
 * timeout fires are 'timeout'.
 */
export const ava: RunnerAdapter = {
  name: 'ava',
  detection: avaDetection,
  vocabulary: {
    modules: ['ava'],
    testFunctions: ['test'],
    assertions: ['is', 'deepEqual', 'notDeepEqual', 'truthy', 'falsy', 'true', 'false', 'throws', 'like'],
    expectations: [],
    nodeAssert: {
      is: 'assert.strictEqual($0, $1)',
      not: 'assert.notStrictEqual($0, $1)',
      deepEqual: 'assert.deepStrictEqual($0, $1)',
      notDeepEqual: 'assert.notDeepStrictEqual($0, $1)',
      truthy: 'assert.ok($0)',
      falsy: 'assert.ok(!$0)',
      true: 'assert.strictEqual($0, true)',
      false: 'assert.strictEqual($0, false)',
      assert: 'assert.ok($0)',
      throws: 'assert.throws($0)',
      throwsAsync: 'await assert.rejects($0)',
      notThrows: 'assert.doesNotThrow($0)',
      notThrowsAsync: 'await $0',
      regex: 'assert.match($0, $1)',
      notRegex: 'assert.doesNotMatch($0, $1)',
      fail: 'assert.fail($0)',
    },
  },
  package: 'ava',
  newestMajor: 6,
  isolatesFiles: true,
  skipsTests: true,
  command(request) {
    const { testFiles, only, args, skip = [], reportFile, tools } = request;
    return {
      // node runs the repository's own ava, with the preload in its main process.
      file: tools.node,
      args: [
        tools.runnerFile('run-bin.cjs'),
        tools.runnerFile('ava-preload.mjs'),
        'ava',
        '--tap',
        // The repository's config may ask to stop at the first failure, leaving tests unreported.
        '--no-fail-fast',
        // ava's timeout is for inactivity: no test finishing within it ends the run.
        `--timeout=${testTimeoutOf(request)}`,
        // ava runs the tests whose title no `!` pattern matches (its titles have no describe path).
        ...[...new Set(skip.map((test) => test.titlePath.join(' ')))].map((title) => `--match=!${title}`),
        ...args,
        // Without files ava runs its configured globs; swesynth names the files it means.
        ...(only ?? testFiles),
      ],
      stdoutFile: reportFile,
    };
  },
  parse: readReport,
  reportFormat: { module: 'ava-report.ts' },
};
