import { join } from 'node:path';
import { locate } from './locate.js';
import { markerData, parseTap, type TapEntry, type TapPoint } from './tap-parser.js';
import { testId, withUniqueIds } from './test-ids.js';
import type { Failure, TestResult } from './types.js';

// The tape adapter's reading of its report (see tape.ts), in a module of its own: a Harbor task's
// grader loads it, compiled, without swesynth, so it imports only Node's modules and its siblings.

/** Each test of a tape run's TAP output, with the markers swesynth's preload prints. */
export function readReport(report: string, root: string): { results: TestResult[]; complete: boolean } {
  const stream = parseTap(report);
  const tests = testsOf(stream.entries);
  const results = tests.flatMap((test, index) => resultsOf(test, tests.slice(index + 1), root));
  return { results: withUniqueIds(results), complete: stream.complete };
}

const MARKER = 'swesynth-tape';

interface MarkedTest {
  file: string;
  titlePath: string[];
  skip?: boolean;
  points: TapPoint[];
}

/** Tests in the order they ran, each with the assertions printed after its marker. */
function testsOf(entries: TapEntry[]): MarkedTest[] {
  const tests: MarkedTest[] = [];
  for (const entry of entries) {
    const marker = markerData(entry, MARKER) as Omit<MarkedTest, 'points'> | undefined;
    if (marker) tests.push({ ...marker, points: [] });
    else if (entry.kind === 'point') tests.at(-1)?.points.push(entry);
  }
  return tests;
}

function resultsOf(test: MarkedTest, later: MarkedTest[], root: string): TestResult[] {
  const { file } = test;
  const isSuite = later.some(
    (other) =>
      other.file === file &&
      other.titlePath.length > test.titlePath.length &&
      test.titlePath.every((title, index) => other.titlePath[index] === title),
  );
  if (isSuite && test.points.length === 0) return [];
  const titlePath = isSuite ? [...test.titlePath, '(suite)'] : test.titlePath;
  const base = { id: testId(file, titlePath), file, titlePath, durationMs: 0 };
  if (test.skip) return [{ ...base, status: 'skip' }];
  const failing = test.points.find((point) => !point.ok && point.directive?.kind !== 'todo');
  if (!failing) return [{ ...base, status: 'pass' }];
  const failure = failureOf(failing, root, file);
  const status = TIMED_OUT.test(failure.message) ? 'timeout' : titlePath[0] === '(file)' ? 'error' : 'fail';
  return [{ ...base, status, failure }];
}

/** What tape's `timeoutAfter` fails a test with. */
const TIMED_OUT = / timed out after \d+ms$/;

function failureOf(point: TapPoint, root: string, file: string): Failure {
  const { data, text } = point.diagnostic ?? { data: {}, text: {} };
  const stack = typeof data.stack === 'string' ? data.stack : undefined;
  const thrown = data.operator === 'error';
  // An error that a test threw leads its stack with its class.
  const name = thrown ? /^(\w+)(?::|$)/m.exec(stack ?? point.description)?.[1] : undefined;
  // tape prints values with object-inspect, as literals: they are kept as printed.
  const values = !thrown && 'expected' in text && 'actual' in text ? { expected: text.expected, actual: text.actual } : {};
  const location = locate([data.at, stack].filter((frame) => typeof frame === 'string').join('\n'), join(root, file), file);
  return {
    message: point.description,
    ...(name ? { name } : {}),
    ...values,
    ...(typeof data.operator === 'string' ? { operator: data.operator } : {}),
    ...(stack ? { stack } : {}),
    ...(location ? { location } : {}),
  };
}
