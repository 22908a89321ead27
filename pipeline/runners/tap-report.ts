import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatValue } from './format.js';
import { locate } from './locate.js';
import { markerData, parseTap, pointsOf, type TapPoint, type TapStream } from './tap-parser.js';
import { testId, withUniqueIds } from './test-ids.js';
import type { Failure, TestResult } from './types.js';

// The tap adapter's reading of its report (see tap.ts), in a module of its own: a Harbor task's
// grader loads it, compiled, without swesynth, so it imports only Node's modules and its siblings.

/** Each test of a node-tap run's TAP output: a top-level subtest per file, nested subtests as title paths. */
export function readReport(report: string, root: string): { results: TestResult[]; complete: boolean } {
  const stream = parseTap(report);
  const files = pointsOf(stream);
  const results = files.flatMap((point) => fileResults(point, root));
  // A file tap never started (it does not exist, say) has no process diagnostics: the run is
  // not what was asked for, so it is no verdict.
  const started = files.every((point) => point.ok || point.diagnostic?.data.command !== undefined);
  return { results: withUniqueIds(results), complete: stream.complete && started };
}

const UNCAUGHT = 'swesynth-uncaught';

function fileResults(point: TapPoint, root: string): TestResult[] {
  const file = relative(root, resolve(root, point.description));
  const stream = point.subtest ?? { entries: [], complete: false };
  const results = streamResults(stream, root, file, []);
  // The process failing stands for the file's own assertions, when they all passed.
  if (!point.ok && !results.some((result) => isFailing(result.status)))
    return [...results.filter((result) => result.titlePath[0] !== '(file)'), processFailure(point, stream, root, file)];
  if (point.directive && results.length === 0) return [result(file, ['(file)'], 'skip', durationOf(point))];
  return results;
}

/** A subtest with subtests of its own is a suite; one with only assertions is a test. */
function streamResults(stream: TapStream, root: string, file: string, path: string[]): TestResult[] {
  const results: TestResult[] = [];
  const own: TapPoint[] = [];
  for (const point of pointsOf(stream)) {
    const titlePath = [...path, point.description];
    if (point.subtest && pointsOf(point.subtest).some((child) => child.subtest))
      results.push(...streamResults(point.subtest, root, file, titlePath));
    else if (point.subtest || point.directive) results.push(testResult(point, root, file, titlePath));
    else own.push(point);
  }
  if (own.length > 0) results.push(ownAssertionsResult(own, root, file, [...path, path.length === 0 ? '(file)' : '(suite)']));
  return results;
}

/** A leaf subtest (or a skipped one, which tap prints without a body). */
function testResult(point: TapPoint, root: string, file: string, titlePath: string[]): TestResult {
  const durationMs = durationOf(point);
  if (point.directive) return result(file, titlePath, 'skip', durationMs);
  if (point.ok) return result(file, titlePath, 'pass', durationMs);
  const failing = firstFailure(point.subtest ? pointsOf(point.subtest) : []) ?? point;
  return result(file, titlePath, timedOut(failing) ? 'timeout' : 'fail', durationMs, failureOf(failing, root, file));
}

function ownAssertionsResult(points: TapPoint[], root: string, file: string, titlePath: string[]): TestResult {
  const failing = firstFailure(points);
  if (!failing) return result(file, titlePath, 'pass', 0);
  // An error that tap caught (thrown, rejected, uncaught) breaks the file or suite itself.
  const status = timedOut(failing) ? 'timeout' : failing.diagnostic?.data.tapCaught ? 'error' : 'fail';
  return result(file, titlePath, status, 0, failureOf(failing, root, file));
}

function processFailure(point: TapPoint, stream: TapStream, root: string, file: string): TestResult {
  const data = point.diagnostic?.data ?? {};
  // tap ends a file that runs past its timeout with SIGTERM.
  if (data.signal === 'SIGTERM')
    return result(file, ['(file)'], 'timeout', durationOf(point), { message: `${file} timed out after ${String(data.timeout)} ms` });
  // The last error that reached the top of the process is the one that ended it.
  const error = stream.entries
    .map((entry) => markerData(entry, UNCAUGHT) as UncaughtError | undefined)
    .filter((uncaught) => uncaught !== undefined)
    .at(-1);
  const exit = `${file} exited with ${data.signal ? `signal ${String(data.signal)}` : `code ${String(data.exitCode)}`}`;
  const location = locate(error?.stack, join(root, file), file);
  const failure: Failure = error
    ? {
        message: error.name ? `${error.name}: ${error.message}` : error.message,
        ...(error.name ? { name: error.name } : {}),
        ...(error.stack ? { stack: error.stack } : {}),
        ...(location ? { location } : {}),
      }
    : { message: exit };
  return result(file, ['(file)'], 'error', durationOf(point), failure);
}

/** What tap-uncaught.mjs prints about the error that ends a test process. */
interface UncaughtError {
  name?: string;
  message: string;
  stack?: string;
}

function result(file: string, titlePath: string[], status: TestResult['status'], durationMs: number, failure?: Failure): TestResult {
  return { id: testId(file, titlePath), file, titlePath, status, durationMs, ...(failure ? { failure } : {}) };
}

/** The first failing point, not counting those marked TODO (expected to fail). */
function firstFailure(points: TapPoint[]): TapPoint | undefined {
  return points.find((point) => !point.ok && point.directive?.kind !== 'todo');
}

/** tap marks what its timeouts end with `expired`; tap 7 and older fail the test that was running with `timeout!` and the signal. */
const timedOut = (point: TapPoint): boolean =>
  point.diagnostic?.data.expired !== undefined || (point.description === 'timeout!' && point.diagnostic?.data.signal !== undefined);

const isFailing = (status: TestResult['status']): boolean => status === 'fail' || status === 'error' || status === 'timeout';

/** tap notes a subtest's duration on its closing point: `# time=12.3ms`. */
function durationOf(point: TapPoint): number {
  const time = /^time=([\d.]+)(ms|s)$/.exec(point.note ?? '');
  return time ? Number(time[1]) * (time[2] === 's' ? 1000 : 1) : 0;
}

function failureOf(point: TapPoint, root: string, file: string): Failure {
  const data = point.diagnostic?.data ?? {};
  const stack = typeof data.stack === 'string' ? data.stack : undefined;
  const values =
    'found' in data || 'wanted' in data
      ? { expected: formatValue(data.wanted), actual: formatValue(data.found) }
      : typeof data.diff === 'string'
        ? valuesFromDiff(data.diff)
        : undefined;
  // Without values to show, the diff is what tells expected from actual.
  const message = !values && typeof data.diff === 'string' ? `${point.description}\n${data.diff}` : point.description;
  const location = locationOf(data.at, root, file) ?? locate(stack, join(root, file), file);
  return {
    message,
    ...(typeof data.type === 'string' ? { name: data.type } : {}),
    ...values,
    ...(stack ? { stack } : {}),
    ...(location ? { location } : {}),
  };
}

/** tap's `at: {file, line, column}`, when it is in the test file (not in a helper). */
function locationOf(at: unknown, root: string, file: string): Failure['location'] {
  if (typeof at !== 'object' || at === null) return undefined;
  const { file: atFile, line, column } = at as Record<string, unknown>;
  if (typeof atFile !== 'string' || typeof line !== 'number') return undefined;
  const absolute = atFile.startsWith('file://') ? fileURLToPath(atFile) : resolve(root, atFile);
  return absolute === resolve(root, file) ? { file, line, column: typeof column === 'number' ? column : 0 } : undefined;
}

/**
 * tap 16 replaces found and wanted with a diff (`-` wanted, `+` found). A value on one line on
 * each side reads back from it: a literal as itself, anything else as the string it was.
 */
function valuesFromDiff(diff: string): { expected: string; actual: string } | undefined {
  const lines = diff.split('\n').filter((line) => line !== '' && !/^(?:---|\+\+\+|@@)/.test(line));
  const [removed, added] = [lines.filter((line) => line.startsWith('-')), lines.filter((line) => line.startsWith('+'))];
  if (lines.length !== 2 || removed.length !== 1 || added.length !== 1) return undefined;
  return { expected: asLiteral(removed[0]!.slice(1)), actual: asLiteral(added[0]!.slice(1)) };
}

function asLiteral(text: string): string {
  return /^(?:-?\d+(?:\.\d+)?(?:e[-+]?\d+)?n?|-?Infinity|NaN|true|false|null|undefined)$/.test(text) ? text : formatValue(text);
}
