import { readReport } from './tape-report.js';
import type { RunnerAdapter } from './types.js';
import { tapeDetection } from './tape-detection.js';
import { majorOf } from './version.js';

/**
 * tape 3 to 5. tape runs every file in one process and prints each test's name as a flat `# name`
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
  },
  package: 'tape',
  isolatesFiles: false,
  command({ testFiles, only, args, reportFile, timeoutMs, tools, version }) {
    const files = [...args, ...(only ?? testFiles)];
    // tape 3's bin has no -r, and loads its files in several ticks: swesynth's runner loads them instead.
    const binLoads = (majorOf(version) ?? Infinity) >= 4;
    return {
      file: binLoads ? 'node_modules/.bin/tape' : tools.node,
      args: binLoads ? ['-r', tools.runnerFile('tape-preload.cjs'), ...files] : [tools.runnerFile('tape-runner.cjs'), ...files],
      env: { SWESYNTH_TAPE_TIMEOUT_MS: String(Math.floor(timeoutMs * 0.8)) },
      stdoutFile: reportFile,
    };
  },
  parse: readReport,
  reportFormat: { module: 'tape-report.ts' },
};
