import { relative } from 'node:path';
import { locate } from './locate.js';
import { testId, withUniqueIds } from './test-ids.js';
import { Failure, TestResult } from './types.js';

/** One line of the reports swesynth's own reporters write (node:test, mocha). */
interface Line {
  /** Absolute; null for an error outside every test file (e.g. a hook of a preloaded plugin). */
  file: string | null;
  titlePath: string[];
  status: TestResult['status'];
  durationMs: number;
  failure?: Failure;
}

/**
 * Reads a report of JSON lines, one test each, ended by `{"end":true}`: a report without that
 * line was cut short by a process that exited early.
 */
export function parseJsonLines(report: string, root: string): { results: TestResult[]; complete: boolean } {
  const lines = report
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Line | { end: true });
  const complete = lines.some((line) => 'end' in line);
  const results = lines
    .filter((line): line is Line => !('end' in line))
    .map((parsed): TestResult => {
      const file = parsed.file === null ? '' : relative(root, parsed.file);
      const location = parsed.file === null ? undefined : locate(parsed.failure?.stack, parsed.file, file);
      const failure = parsed.failure ? Failure.parse({ ...parsed.failure, location }) : undefined;
      return {
        id: testId(file, parsed.titlePath),
        file,
        titlePath: parsed.titlePath,
        status: parsed.status,
        durationMs: parsed.durationMs,
        ...(failure ? { failure } : {}),
      };
    });
  return { results: withUniqueIds(results), complete };
}
