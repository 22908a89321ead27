import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { z } from 'zod';
import { formatValue } from './format.js';
import { locate } from './locate.js';
import { testId, withUniqueIds, type Failure, type TestResult, type TestStatus } from './types.js';

/**
 * The report `jest --json` writes, which swesynth's vitest reporter writes too: only the fields
 * read here. Beside jest's statuses, the vitest reporter marks a suite or file that broke in its
 * own body or hooks 'error' (titled `(suite)` or `(file)`).
 */
const AssertionResult = z.object({
  ancestorTitles: z.array(z.string()),
  title: z.string(),
  status: z.string(),
  duration: z.number().nullish(),
  failureMessages: z.array(z.string()).nullish(),
  failureDetails: z.array(z.unknown()).nullish(),
});
type AssertionResult = z.infer<typeof AssertionResult>;

const FileResult = z.object({
  /** The test file, absolute. */
  name: z.string(),
  status: z.string(),
  /** Why the file failed, as the runner printed it. */
  message: z.string().nullish(),
  assertionResults: z.array(AssertionResult),
});
type FileResult = z.infer<typeof FileResult>;

const Report = z.object({ testResults: z.array(FileResult), wasInterrupted: z.boolean().optional() });

/** How each runner words a test or hook that ran out of time: jest, then vitest. */
const TIMEOUT = /Exceeded timeout of \d+ ms for a (?:test|hook)|(?:Test|Hook) timed out in \d+ ?ms/;
const STACK_FRAME = /^\s+at \S/;
/** A line of the source excerpt jest prints under an error: `  > 3 | throw new Error(...)`. */
const CODE_FRAME = /^\s*>?\s*\d+ \|/;
/** jest leaves `Error: ` out of a plain error's text, and keeps other classes' names. */
const ERROR_NAME = /^((?:[A-Z][\w$]*)?(?:Error|Exception))(?: \[\w+\])?: /;

/**
 * Reads a jest-shaped JSON report. The runner writes it whole at the end of the run: a report
 * that is missing, cut short, unreadable or marked interrupted is not complete.
 */
export function parseJestJson(report: string, root: string): { results: TestResult[]; complete: boolean } {
  let parsed: z.infer<typeof Report>;
  try {
    parsed = Report.parse(JSON.parse(report));
  } catch {
    return { results: [], complete: false };
  }
  const results = parsed.testResults.flatMap((fileResult) => fileResults(fileResult, root));
  return { results: withUniqueIds(results), complete: parsed.wasInterrupted !== true };
}

function fileResults(fileResult: FileResult, root: string): TestResult[] {
  const file = relative(root, fileResult.name);
  const results = fileResult.assertionResults.map((assertion): TestResult => {
    const titlePath = [...assertion.ancestorTitles, assertion.title];
    const messages = assertion.failureMessages ?? [];
    const failure = failureOf(messages[0], assertion.failureDetails?.[0], fileResult.name, file);
    return {
      id: testId(file, titlePath),
      file,
      titlePath,
      status: statusOf(assertion.status, messages.join('\n')),
      durationMs: assertion.duration ?? 0,
      ...(failure ? { failure } : {}),
    };
  });
  // A file that failed with no failing test broke outside its tests: it did not load, or a hook failed.
  const failing = results.some((result) => result.status !== 'pass' && result.status !== 'skip');
  if (fileResult.status === 'failed' && !failing) results.push(fileError(fileResult, file));
  return results;
}

function statusOf(status: string, failureText: string): TestStatus {
  if (status === 'passed') return 'pass';
  if (status === 'failed' || status === 'error') {
    if (TIMEOUT.test(failureText)) return 'timeout';
    return status === 'failed' ? 'fail' : 'error';
  }
  // pending, skipped, todo, disabled
  return 'skip';
}

function fileError(fileResult: FileResult, file: string): TestResult {
  const text = fileResult.message ?? '';
  const { name = 'Error', message } = splitError(text);
  const titlePath = ['(file)'];
  return {
    id: testId(file, titlePath),
    file,
    titlePath,
    status: TIMEOUT.test(text) ? 'timeout' : 'error',
    durationMs: 0,
    failure: {
      message: message ? `${name}: ${message}` : 'the test file failed outside its tests',
      name,
      stack: stripVTControlCharacters(text),
      location: locate(text, fileResult.name, file),
    },
  };
}

function failureOf(text: string | undefined, detail: unknown, absoluteFile: string, file: string): Failure | undefined {
  if (text === undefined) return undefined;
  const { name, message } = splitError(text);
  const stack = stripVTControlCharacters(text);
  const location = locate(stack, absoluteFile, file);
  return { message, ...(name ? { name } : {}), ...valuesOf(detail), stack, ...(location ? { location } : {}) };
}

/**
 * The error's class and message from its text: `Name: message`, up to the first stack frame or
 * source excerpt. jest heads the text of a file that failed to load with a `● ...` line.
 */
function splitError(text: string): { name?: string; message: string } {
  const lines = stripVTControlCharacters(text).replace(/^\s*● .*\n/, '').split('\n');
  const end = lines.findIndex((line) => STACK_FRAME.test(line) || CODE_FRAME.test(line));
  const head = dedent(end === -1 ? lines : lines.slice(0, end)).trim();
  const match = ERROR_NAME.exec(head);
  return match ? { name: match[1], message: head.slice(match[0].length) } : { message: head };
}

function dedent(lines: string[]): string {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => /^ */.exec(line)![0].length);
  const indent = Math.min(...indents, Infinity);
  return lines.map((line) => line.slice(Number.isFinite(indent) ? indent : 0)).join('\n');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The expected and actual values, where the runner gives them. jest keeps a matcher's values (or
 * an assertion error's own) through JSON, and they are formatted here; vitest renders them in the
 * test worker before any reporter sees them, so its reporter passes that rendering on as `printed`.
 */
function valuesOf(detail: unknown): Pick<Failure, 'expected' | 'actual' | 'operator'> {
  if (!isRecord(detail)) return {};
  const operator = typeof detail.operator === 'string' ? { operator: detail.operator } : {};
  const printed = detail.printed;
  if (isRecord(printed) && typeof printed.expected === 'string' && typeof printed.actual === 'string') {
    return { expected: printed.expected, actual: printed.actual, ...operator };
  }
  const source = isRecord(detail.matcherResult) ? detail.matcherResult : detail;
  if (!('expected' in source) && !('actual' in source)) return {};
  return { expected: formatValue(source.expected), actual: formatValue(source.actual), ...operator };
}
