import { parseJsonLines } from './json-lines.js';
import type { RunnerAdapter } from './types.js';
import { nodeTestDetection } from './node-test-detection.js';

/**
 * node:test as the toolchain's Node.js runs it. Node 20 and 22 take the same arguments and the
 * reporter reads both (they name a crashed file differently); a Node.js older than 20.11 has no
 * test timeout of its own, and a hanging test there ends only when the run is killed.
 */
export const nodeTest: RunnerAdapter = {
  name: 'node-test',
  detection: nodeTestDetection,
  // The assertions are node's assert module, which node:test suites use (as do many suites of other runners).
  vocabulary: {
    modules: ['node:test'],
    testFunctions: ['it', 'test'],
    assertions: [
      'assert',
      'equal',
      'strictEqual',
      'deepEqual',
      'deepStrictEqual',
      'notEqual',
      'notStrictEqual',
      'notDeepEqual',
      'notDeepStrictEqual',
      'ok',
      'throws',
      'rejects',
      'doesNotThrow',
      'match',
    ],
    expectations: [],
  },
  isolatesFiles: true,
  command({ testFiles, only, args, reportFile, timeoutMs, tools }) {
    const [major = Infinity, minor = Infinity] =
      tools.nodeVersion === null ? [] : tools.nodeVersion.replace(/^v/, '').split('.').map(Number);
    return {
      file: tools.node,
      args: [
        '--test',
        `--test-reporter=${tools.runnerFile('node-test-reporter.mjs')}`,
        `--test-reporter-destination=${reportFile}`,
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        ...(major > 20 || (major === 20 && minor >= 11) ? [`--test-timeout=${Math.floor(timeoutMs * 0.8)}`] : []),
        ...args,
        // Node 20's runner does not expand globs (Node 22's does): it is given the files.
        ...(only ?? testFiles),
      ],
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
