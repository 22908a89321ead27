import { join } from 'node:path';
import { locate } from './locate.js';
import { markerData, parseTap, type TapEntry, type TapPoint } from './tap-parser.js';
import { Failure, TestResult, testId, withUniqueIds, type RunnerAdapter } from './types.js';
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
  parse(report, root) {
    const stream = parseTap(report);
    const tests = testsOf(stream.entries);
    const results = tests.flatMap((test, index) => resultsOf(test, tests.slice(index + 1), root));
    return { results: withUniqueIds(results), complete: stream.complete };
  },
};

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
  return Failure.parse({
    message: point.description,
    ...(name ? { name } : {}),
    ...values,
    ...(typeof data.operator === 'string' ? { operator: data.operator } : {}),
    ...(stack ? { stack } : {}),
    ...(location ? { location } : {}),
  });
}
