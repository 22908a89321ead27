import { join } from 'node:path';
import { locate } from './locate.js';
import { markerData, parseTap, type TapEntry, type TapPoint } from './tap-parser.js';
import { testId, withUniqueIds } from './test-ids.js';
import type { Failure, TestResult } from './types.js';

// The ava adapter's reading of its report (see ava.ts), in a module of its own: a Harbor task's
// grader loads it, compiled, without swesynth, so it imports only Node's modules and its siblings.

/** Each test of an ava run's TAP output, with the markers swesynth's preload prints before each test line. */
export function readReport(report: string, root: string): { results: TestResult[]; complete: boolean } {
  const stream = parseTap(report);
  const marked = markedPoints(stream.entries);
  const crashes = new Map<string, TapPoint>();
  const results: TestResult[] = [];
  for (const { marker, point } of marked) {
    if (!marker) continue;
    if (marker.crash) {
      // The first crash of a file says why; a worker's exit code follows it.
      if (!crashes.has(marker.file)) crashes.set(marker.file, point);
      continue;
    }
    results.push(testResult(marker, point, root));
  }
  for (const [file, point] of crashes) {
    // ava titles a crash with the error's first line, or with how the worker exited.
    const failure = { ...failureOf(point, root, file), message: point.description };
    results.push({ id: testId(file, ['(file)']), file, titlePath: ['(file)'], status: 'error', durationMs: 0, failure });
  }
  // A line without a marker belongs to no file (ava's own internal error): no verdict.
  const attributed = marked.every(({ marker }) => marker !== undefined);
  return { results: withUniqueIds(results), complete: stream.complete && attributed };
}

const MARKER = 'swesynth-ava';

interface Marker {
  file: string;
  durationMs?: number;
  crash?: boolean;
}

function markedPoints(entries: TapEntry[]): { marker: Marker | undefined; point: TapPoint }[] {
  let marker: Marker | undefined;
  const marked: { marker: Marker | undefined; point: TapPoint }[] = [];
  for (const entry of entries) {
    if (entry.kind === 'comment') {
      marker = (markerData(entry, MARKER) as Marker | undefined) ?? marker;
      continue;
    }
    marked.push({ marker, point: entry });
    marker = undefined;
  }
  return marked;
}

function testResult(marker: Marker, point: TapPoint, root: string): TestResult {
  const { file } = marker;
  const titlePath = [point.description];
  const base = { id: testId(file, titlePath), file, titlePath, durationMs: marker.durationMs ?? 0 };
  if (point.directive) return { ...base, status: 'skip' };
  if (point.ok) return { ...base, status: 'pass' };
  const failure = failureOf(point, root, file);
  return { ...base, status: TIMED_OUT.test(failure.message) ? 'timeout' : 'fail', failure };
}

/** What ava fails the pending tests with when its timeout fires. */
const TIMED_OUT = /^Exited because no new tests completed within the last \d+ms of inactivity$/;

function failureOf(point: TapPoint, root: string, file: string): Failure {
  const data = point.diagnostic?.data ?? {};
  // ava 6 calls the values it shows `details`, ava 5 and older `values`.
  const shownValues = data.details ?? data.values;
  const details = typeof shownValues === 'object' && shownValues !== null ? (shownValues as Record<string, unknown>) : {};
  const shown = Object.entries(details).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  const thrown = shown.map(([, value]) => thrownError(value)).find((error) => error !== undefined);
  const values = shown.map(([label, value]) => (label.startsWith('Difference') ? valuesFromDifference(value) : undefined)).find(Boolean);
  const assertion = typeof data.assertion === 'string' ? data.assertion : undefined;
  const stated =
    typeof data.message === 'string' && data.message !== '' ? data.message : assertion ? `${assertion} failed` : point.description;
  // Details that could not be read as values still say what went wrong.
  const message =
    thrown?.message ??
    (values || shown.length === 0 ? stated : [stated, ...shown.map(([label, value]) => `${label}\n${value}`)].join('\n'));
  const name = thrown?.name ?? (typeof data.name === 'string' ? data.name : undefined);
  const at = typeof data.at === 'string' ? data.at : undefined;
  const location = locate(at, join(root, file), file);
  return {
    message,
    ...(name ? { name } : {}),
    ...values,
    // `t.is()` is the assertion `is`.
    ...(assertion ? { operator: assertion.replace(/^t\./, '').replace(/\(\)$/, '') } : {}),
    ...(typeof data.stack === 'string' ? { stack: data.stack } : {}),
    ...(location ? { location } : {}),
  };
}

/** ava shows an error a test threw as an object: `TypeError {\n  message: '…',\n}`. */
function thrownError(formatted: string): { name: string; message: string } | undefined {
  const name = /^([A-Z]\w*) \{$/m.exec(formatted.split('\n')[0] ?? '')?.[1];
  const message = /^\s+message: '((?:[^'\\]|\\.)*)',$/m.exec(formatted)?.[1];
  return name && message !== undefined ? { name, message: message.replace(/\\(.)/g, '$1') } : undefined;
}

/** ava's diff (`Difference:` in ava 5 and older): `- actual` and `+ expected`, each on one line, read back as printed. */
function valuesFromDifference(diff: string): { expected: string; actual: string } | undefined {
  const lines = diff.split('\n');
  const [removed, added] = [lines.filter((line) => line.startsWith('- ')), lines.filter((line) => line.startsWith('+ '))];
  if (lines.length !== 2 || removed.length !== 1 || added.length !== 1) return undefined;
  return { expected: added[0]!.slice(2), actual: removed[0]!.slice(2) };
}
