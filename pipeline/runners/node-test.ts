import { relative } from 'node:path';
import { reporterPath } from '../paths.js';
import { Failure, TestResult, testId, withUniqueIds, type RunnerAdapter } from './types.js';

interface Line {
  file: string;
  titlePath: string[];
  status: TestResult['status'];
  durationMs: number;
  failure?: Failure & { stack?: string };
}

/** Where in the test file the failure happened, from the first stack frame inside it. */
function locate(stack: string | undefined, absoluteFile: string, file: string): Failure['location'] {
  if (!stack) return undefined;
  for (const match of stack.matchAll(/\(?(?:file:\/\/)?(\/[^():\s]+):(\d+):(\d+)\)?/g)) {
    if (match[1] === absoluteFile) return { file, line: Number(match[2]), column: Number(match[3]) };
  }
  return undefined;
}

export const nodeTest: RunnerAdapter = {
  name: 'node-test',
  command({ testFiles, only, args, reportFile, timeoutMs }) {
    return {
      file: process.execPath,
      args: [
        '--test',
        `--test-reporter=${reporterPath('node-test-reporter.mjs')}`,
        `--test-reporter-destination=${reportFile}`,
        // A test's own timeout fires before the process is killed, so an async hang is reported as such.
        `--test-timeout=${Math.floor(timeoutMs * 0.8)}`,
        ...args,
        // Node 20's runner does not expand globs: it is given the files.
        ...(only ?? testFiles),
      ],
    };
  },
  parse(report, root) {
    const lines = report.split('\n').filter((line) => line.trim() !== '').map((line) => JSON.parse(line) as Line | { end: true });
    const complete = lines.some((line) => 'end' in line);
    const results = lines
      .filter((line): line is Line => !('end' in line))
      .map((parsed): TestResult => {
        const file = relative(root, parsed.file);
        const failure = parsed.failure
          ? Failure.parse({ ...parsed.failure, location: locate(parsed.failure.stack, parsed.file, file) })
          : undefined;
        return { id: testId(file, parsed.titlePath), file, titlePath: parsed.titlePath, status: parsed.status, durationMs: parsed.durationMs, ...(failure ? { failure } : {}) };
      });
    return { results: withUniqueIds(results), complete };
  },
};
