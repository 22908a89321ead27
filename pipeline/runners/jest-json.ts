import { relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { z } from 'zod';
import { formatValue } from './format.js';
import { locate } from './locate.js';
import { testId, withUniqueIds } from './test-ids.js';
import type { Failure, TestResult, TestStatus } from './types.js';

/**
 * The report `jest --json` writes, which swesynth's vitest reporter writes too: only the fields
 * read here. Beside jest's statuses, the vitest reporter marks a suite or file that broke in its
 * own body or hooks 'error' (titled `(suite)` or `(file)`).
 */
const AssertionResult = z.object({
  // A title need not be a string (`describe(404, …)`, and any title in jest 22): jest names the test with its text.
  ancestorTitles: z.array(z.coerce.string()),
  title: z.coerce.string(),
  status: z.string(),
  duration: z.number().nullish(),
  failureMessages: z.array(z.string()).nullish(),
  failureDetails: z.array(z.unknown()).nullish(),
});

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

/** How each runner words a test or hook that ran out of time: jest 27 on, jest 26 and older (jasmine2), vitest. */
const TIMEOUT =
  /Exceeded timeout of \d+ ms for a (?:test|hook)|(?:Test|Hook) timed out in \d+ ?ms|^:? ?(Timeout - Async callback was not invoked within the \d+ ?ms timeout specified by jest\.setTimeout\.)/;
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
  // jest runs any path it is given: a test file that is not there was never run, and the run is not the one asked for.
  const missing = (fileResult: FileResult) =>
    fileResult.message?.includes(`ENOENT: no such file or directory, open '${fileResult.name}'`) === true;
  const results = parsed.testResults.filter((fileResult) => !missing(fileResult)).flatMap((fileResult) => fileResults(fileResult, root));
  return { results: withUniqueIds(results), complete: parsed.wasInterrupted !== true && !parsed.testResults.some(missing) };
}

function fileResults(fileResult: FileResult, root: string): TestResult[] {
  const file = relative(root, fileResult.name);
  const results = fileResult.assertionResults.map((assertion) =>
    resultOf({
      file,
      absoluteFile: fileResult.name,
      titlePath: [...assertion.ancestorTitles, assertion.title],
      status: assertion.status,
      durationMs: assertion.duration ?? 0,
      failureMessages: assertion.failureMessages ?? [],
      failureDetail: assertion.failureDetails?.[0],
    }),
  );
  // A file that failed with no failing test broke outside its tests: it did not load, or a hook failed.
  if (fileResult.status === 'failed' && !results.some((result) => result.status !== 'pass' && result.status !== 'skip')) {
    results.push(
      resultOf({
        file,
        absoluteFile: fileResult.name,
        titlePath: ['(file)'],
        status: 'error',
        durationMs: 0,
        failureMessages: [fileResult.message ?? ''],
        failureDetail: undefined,
      }),
    );
  }
  return results;
}

interface Outcome {
  file: string;
  absoluteFile: string;
  titlePath: string[];
  /** As the report words it. */
  status: string;
  durationMs: number;
  failureMessages: string[];
  failureDetail: unknown;
}

function resultOf(outcome: Outcome): TestResult {
  const { file, titlePath, durationMs } = outcome;
  const failure = failureOf(outcome);
  return {
    id: testId(file, titlePath),
    file,
    titlePath,
    status: statusOf(outcome.status, outcome.failureMessages.join('\n')),
    durationMs,
    ...(failure ? { failure } : {}),
  };
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

function failureOf({ file, absoluteFile, titlePath, failureMessages, failureDetail }: Outcome): Failure | undefined {
  const text = failureMessages[0];
  if (text === undefined) return undefined;
  const stack = stripVTControlCharacters(text);
  const { name, message } = splitError(stack);
  const location = locate(stack, absoluteFile, file);
  const where = location ? { location } : {};
  if (titlePath[0] === '(file)') {
    // A file that broke names its error's class, as a crash prints it.
    const className = name ?? 'Error';
    return { message: message ? `${className}: ${message}` : 'the test file failed outside its tests', name: className, stack, ...where };
  }
  // jest 26 and older repeat their timeout's sentence around an empty error: the sentence is the message.
  const timeoutSentence = TIMEOUT.exec(stack)?.[1];
  if (timeoutSentence) return { message: timeoutSentence, stack, ...where };
  return { message, ...(name ? { name } : {}), ...(valuesOf(failureDetail) ?? valuesFromMatcherText(message)), stack, ...where };
}

/**
 * The error's class and message from its text: `Name: message`, up to the first stack frame or
 * source excerpt. jest heads the text of a file that failed to load with a `● ...` line.
 */
function splitError(text: string): { name?: string; message: string } {
  const lines = text.replace(/^\s*● .*\n/, '').split('\n');
  const end = lines.findIndex((line) => STACK_FRAME.test(line) || CODE_FRAME.test(line));
  const head = dedent(end === -1 ? lines : lines.slice(0, end)).trim();
  const match = ERROR_NAME.exec(head);
  return match ? { name: match[1], message: head.slice(match[0].length) } : { message: head };
}

/** jest indents the text of a file that failed to load. */
function dedent(lines: string[]): string {
  const indents = lines.filter((line) => line.trim() !== '').map((line) => line.length - line.trimStart().length);
  const indent = indents.length > 0 ? Math.min(...indents) : 0;
  return lines.map((line) => line.slice(indent)).join('\n');
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null;

/**
 * The expected and actual values, where the runner gives them. jest keeps a matcher's values (or
 * an assertion error's own) through JSON, and they are formatted here; vitest renders them in the
 * test worker before any reporter sees them, so its reporter passes that rendering on as `printed`.
 */
function valuesOf(detail: unknown): Pick<Failure, 'expected' | 'actual' | 'operator'> | undefined {
  if (!isRecord(detail)) return undefined;
  const operator = typeof detail.operator === 'string' ? { operator: detail.operator } : {};
  const printed = detail.printed;
  if (isRecord(printed) && typeof printed.expected === 'string' && typeof printed.actual === 'string') {
    return { expected: printed.expected, actual: printed.actual, ...operator };
  }
  const source = isRecord(detail.matcherResult) ? detail.matcherResult : detail;
  if (!('expected' in source) && !('actual' in source)) return {};
  return { expected: formatValue(source.expected), actual: formatValue(source.actual), ...operator };
}

/**
 * The expected and received values of a matcher's message, each value on one line: `Expected: 3`
 * and `Received: 2`, or, as jest 22 and 23 print some, under lines of their own
 * (`Expected value to be:`, `  3`, `Received:`, `  2`).
 */
const MATCHER_VALUES = /^Expected(?: value [\w ]+)?:(?: |\n {2})(.+)\nReceived:(?: |\n {2})(.+)$/m;

/**
 * jest 28 and older keep no failure details in their JSON report, only the matcher's message. Its
 * values are printed jest's way: one that reads as JSON (a number, a string, null) is shown as the
 * details would show it; any other stays as printed.
 */
function valuesFromMatcherText(message: string): Pick<Failure, 'expected' | 'actual'> {
  const match = MATCHER_VALUES.exec(message);
  if (!match) return {};
  const shown = (printed: string) => {
    try {
      return formatValue(JSON.parse(printed));
    } catch {
      return printed;
    }
  };
  return { expected: shown(match[1]!), actual: shown(match[2]!) };
}
