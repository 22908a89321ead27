import { readReport } from './tap-report.js';
import { type RunnerAdapter, runLimitOf } from './types.js';
import { majorOf } from './version.js';
import { tapDetection } from './tap-detection.js';

/**
 * node-tap 1 to 16 (the classic CLI) and 18 to 21 (the @tapjs CLI with plugins; there is no tap 17). Each test file runs in its own process and is a top-level subtest named by its
 * path; nested `t.test` subtests give the title path, and the leaf subtests are the tests. A
 * subtest's own assertions beside its subtests become `<path> > (suite)`, those at a file's top
 * level `(file)`. A file whose process fails with no failing test (a load error, a crash, tap's
 * per-file timeout) is one `(file)` result: 'timeout' when tap killed it, else 'error'.
 */
export const tap: RunnerAdapter = {
  name: 'tap',
  detection: tapDetection,
  vocabulary: {
    modules: ['tap'],
    testFunctions: ['test'],
    assertions: ['equal', 'same', 'strictSame', 'ok', 'notOk', 'throws', 'rejects', 'doesNotThrow', 'match', 'has', 'hasStrict'],
    expectations: [],
    nodeAssert: {
      equal: 'assert.strictEqual($0, $1)',
      not: 'assert.notStrictEqual($0, $1)',
      same: 'assert.deepEqual($0, $1)',
      notSame: 'assert.notDeepEqual($0, $1)',
      strictSame: 'assert.deepStrictEqual($0, $1)',
      strictNotSame: 'assert.notDeepStrictEqual($0, $1)',
      ok: 'assert.ok($0)',
      notOk: 'assert.ok(!$0)',
      error: 'assert.ifError($0)',
      throws: 'assert.throws($0)',
      doesNotThrow: 'assert.doesNotThrow($0)',
      rejects: 'await assert.rejects($0)',
      resolves: 'await $0',
      fail: 'assert.fail($0)',
    },
  },
  package: 'tap',
  newestMajor: 21,
  isolatesFiles: true,
  command(request) {
    const { testFiles, only, args, reportFile, tools, version } = request;
    const major = majorOf(version) ?? Infinity;
    return {
      file: 'node_modules/.bin/tap',
      args: [
        '--reporter=tap',
        // tap 18 renamed the option; both majors measure coverage by default.
        major >= 18 ? '--disable-coverage' : '--no-coverage',
        '--no-color',
        // The repository's config may ask to bail out, which would leave tests unreported.
        '--no-bail',
        // tap's timeout is per file, in whole seconds: the run's, not one test's.
        `--timeout=${Math.max(1, Math.floor(runLimitOf(request) / 1000))}`,
        // tap 1 to 4 pass no arguments to node; there an uncaught error fails the file without its own report.
        ...(major >= 5 ? [`--node-arg=--import=${tools.runnerFile('tap-uncaught.mjs')}`] : []),
        ...args,
        // Without files tap searches its default globs; swesynth names the files it means.
        ...(only ?? testFiles),
      ],
      stdoutFile: reportFile,
    };
  },
  parse: readReport,
  reportFormat: { module: 'tap-report.ts' },
};
