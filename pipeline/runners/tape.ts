import { readReport } from './tape-report.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { tapeDetection } from './tape-detection.js';
import { majorOf } from './version.js';

/**
 * tape 2 to 5. tape runs every file in one process and prints each test's name as a flat `# name`
 * comment, without its file or parents; swesynth's preload (tape-preload.cjs) prints a marker
 * with both as each test starts, and the assertions up to the next marker belong to that test.
 * A test with subtests is a suite: its own assertions, if any, become `<path> > (suite)`. A
 * file that fails to load is a test `(file)` of that file, reported as an error. tape has no
 * timeout of its own: the preload gives each top-level test one, and a test that runs into it
 * (or into its own `timeoutAfter`) is 'timeout'. tape reports no durations: they are 0.
 */
export const tape: RunnerAdapter = {
  name: 'tape',
  detection: tapeDetection,
  vocabulary: {
    modules: ['tape'],
    testFunctions: ['test'],
    assertions: [
      'equal',
      'equals',
      'deepEqual',
      'isEqual',
      'looseEqual',
      'notEqual',
      'notDeepEqual',
      'ok',
      'notOk',
      'true',
      'false',
      'throws',
      'doesNotThrow',
    ],
    expectations: [],
    nodeAssert: {
      ...Object.fromEntries(
        ['equal', 'equals', 'isEqual', 'is', 'strictEqual', 'strictEquals'].map((name) => [name, 'assert.strictEqual($0, $1)']),
      ),
      ...Object.fromEntries(
        ['notEqual', 'notEquals', 'isNotEqual', 'doesNotEqual', 'isInequal', 'notStrictEqual'].map((name) => [
          name,
          'assert.notStrictEqual($0, $1)',
        ]),
      ),
      ...Object.fromEntries(['deepEqual', 'deepEquals', 'isEquivalent', 'same'].map((name) => [name, 'assert.deepStrictEqual($0, $1)'])),
      ...Object.fromEntries(
        ['notDeepEqual', 'notDeepEquals', 'notEquivalent', 'notSame'].map((name) => [name, 'assert.notDeepStrictEqual($0, $1)']),
      ),
      looseEqual: 'assert.equal($0, $1)',
      looseEquals: 'assert.equal($0, $1)',
      deepLooseEqual: 'assert.deepEqual($0, $1)',
      ok: 'assert.ok($0)',
      true: 'assert.ok($0)',
      assert: 'assert.ok($0)',
      notOk: 'assert.ok(!$0)',
      notok: 'assert.ok(!$0)',
      false: 'assert.ok(!$0)',
      error: 'assert.ifError($0)',
      ifError: 'assert.ifError($0)',
      // tape takes what node's assert takes: a RegExp, a class or a function, or else a message.
      throws: 'assert.throws($*)',
      doesNotThrow: 'assert.doesNotThrow($0)',
      match: 'assert.match($0, $1)',
      doesNotMatch: 'assert.doesNotMatch($0, $1)',
      fail: 'assert.fail($0)',
    },
  },
  package: 'tape',
  newestMajor: 5,
  isolatesFiles: false,
  command(request) {
    const { testFiles, only, args, reportFile, tools, version } = request;
    const files = [...args, ...(only ?? testFiles)];
    // tape 2 and 3's bins have no -r, and load their files in several ticks: swesynth's runner loads them instead.
    const binLoads = (majorOf(version) ?? Infinity) >= 4;
    return {
      file: binLoads ? 'node_modules/.bin/tape' : tools.node,
      args: binLoads ? ['-r', tools.runnerFile('tape-preload.cjs'), ...files] : [tools.runnerFile('tape-runner.cjs'), ...files],
      env: { SWESYNTH_TAPE_TIMEOUT_MS: String(testTimeoutOf(request)) },
      stdoutFile: reportFile,
    };
  },
  parse: readReport,
  reportFormat: { module: 'tape-report.ts' },
};
