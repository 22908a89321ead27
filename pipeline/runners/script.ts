import { parseJsonLines } from './json-lines.js';
import { scriptDetection } from './script-detection.js';
import { type RunnerAdapter, runLimitOf } from './types.js';

/**
 * Test files that are plain scripts (`node test/index.js`): each file is one test, run as its own
 * `node <file>` process by script-runner.mjs, passing when it exits with 0; the error that ended it
 * (or the end of its output) is the failure. A file's test is named after the file:
 * `<file>::<file's base name>`, e.g. `test/math.js::math.js`. The profile's runner arguments are
 * Node.js options for each file's process (a loader such as `--import tsx`).
 */
export const script: RunnerAdapter = {
  name: 'script',
  detection: scriptDetection,
  vocabulary: { modules: [], testFunctions: [], assertions: [], expectations: [] },
  isolatesFiles: true,
  command(request) {
    const { testFiles, only, args, reportFile, tools } = request;
    return {
      file: tools.node,
      args: [tools.runnerFile('script-runner.mjs'), ...(only ?? testFiles)],
      env: {
        SWESYNTH_SCRIPT_REPORT: reportFile,
        // The files share the time, with room to write the report before the run is killed.
        SWESYNTH_SCRIPT_TIMEOUT_MS: String(runLimitOf(request)),
        SWESYNTH_SCRIPT_NODE_ARGS: JSON.stringify(args),
      },
    };
  },
  parse: parseJsonLines,
  reportFormat: 'json-lines',
};
