import { parseJsonLines } from './json-lines.js';
import { type RunnerAdapter, testTimeoutOf } from './types.js';
import { uvuDetection } from './uvu-detection.js';

/**
 * uvu 0.3 to 0.5, through swesynth's runner (uvu-runner.cjs) in place of uvu's command line,
 * which takes a folder and a pattern rather than files and names no passing test: it runs the
 * files it is given with the repository's uvu, which a preload (uvu-preload.cjs) changes so that
 * it reports each test, loading each file alone (a file that throws is a `(file)` error), gives
 * each test a timeout, and writes a JSON line per test with its suite. Every file loads into one
 * process.
 */
export const uvu: RunnerAdapter = {
  name: 'uvu',
  detection: uvuDetection,
  vocabulary: {
    modules: ['uvu', 'uvu/assert'],
    testFunctions: ['test'],
    assertions: ['is', 'equal', 'ok', 'not', 'type', 'instance', 'match', 'snapshot', 'fixture', 'throws'],
    expectations: [],
    // uvu/assert: `is` compares with Object.is, `equal` deeply.
    nodeAssert: {
      is: 'assert.strictEqual($0, $1)',
      'not.is': 'assert.notStrictEqual($0, $1)',
      equal: 'assert.deepStrictEqual($0, $1)',
      'not.equal': 'assert.notDeepStrictEqual($0, $1)',
      ok: 'assert.ok($0)',
      not: 'assert.ok(!$0)',
      type: 'assert.strictEqual(typeof $0, $1)',
      instance: 'assert.ok($0 instanceof $1)',
      throws: 'assert.throws($0)',
      'not.throws': 'assert.doesNotThrow($0)',
      unreachable: 'assert.fail($0)',
    },
  },
  package: 'uvu',
  newestMajor: 0,
  isolatesFiles: false,
  command(request) {
    const { testFiles, only, args, reportFile, tools } = request;
    // Modules uvu's -r loads are node's preloads too, as loaders such as esm hook the process only from there.
    const preloads = args.flatMap((arg, i) => (['-r', '--require'].includes(args[i - 1] ?? '') ? ['--require', arg] : []));
    return {
      file: tools.node,
      // swesynth's preload comes first: it changes uvu for whatever loader the repository's preloads install.
      args: [
        '--require',
        tools.runnerFile('uvu-preload.cjs'),
        ...preloads,
        tools.runnerFile('uvu-runner.cjs'),
        ...args,
        ...(only ?? testFiles),
      ],
      env: { SWESYNTH_UVU_REPORT: reportFile, SWESYNTH_UVU_TIMEOUT: String(testTimeoutOf(request)) },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
