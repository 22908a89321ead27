import { parseJsonLines } from './json-lines.js';
import type { RunnerAdapter } from './types.js';
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
  },
  package: 'uvu',
  isolatesFiles: false,
  command({ testFiles, only, args, reportFile, timeoutMs, tools }) {
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
      env: { SWESYNTH_UVU_REPORT: reportFile, SWESYNTH_UVU_TIMEOUT: String(Math.floor(timeoutMs * 0.8)) },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
