import { parseJsonLines } from './json-lines.js';
import type { RunnerAdapter } from './types.js';
import { nodeTestDetection } from './node-test-detection.js';

export const nodeTest: RunnerAdapter = {
  name: 'node-test',
  detection: nodeTestDetection,
  isolatesFiles: true,
  command({ testFiles, only, args, reportFile, timeoutMs, tools }) {
    return {
      file: tools.node,
      args: [
        '--test',
        `--test-reporter=${tools.runnerFile('node-test-reporter.mjs')}`,
        `--test-reporter-destination=${reportFile}`,
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        `--test-timeout=${Math.floor(timeoutMs * 0.8)}`,
        ...args,
        // Node 20's runner does not expand globs: it is given the files.
        ...(only ?? testFiles),
      ],
    };
  },
  parse: parseJsonLines,
};
