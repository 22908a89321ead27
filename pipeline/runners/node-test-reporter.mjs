// A node:test reporter that writes one JSON line per test with its describe path, status,
// duration and failure details. Loaded by the test runner process, so it is plain JavaScript.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inspect } from 'node:util';

const show = (value) => inspect(value, { depth: 6, breakLength: Infinity, maxArrayLength: 50, maxStringLength: 2000 });

/**
 * A value as it reaches the reporter from a test file's own process under `--test`: a function
 * (the error class `assert.throws` waited for) does not cross, so a file run alone reports it alike.
 */
const portable = (value) => (typeof value === 'function' ? undefined : value);

function failureOf(error) {
  if (!error) return undefined;
  // The runner wraps what the test threw; the cause is the real error.
  const cause = typeof error.cause?.message === 'string' ? error.cause : error;
  const failure = {
    message: String(cause.message ?? error.message ?? cause),
    name: cause.name,
    stack: typeof cause.stack === 'string' ? cause.stack : undefined,
    kind: error.failureType,
  };
  if ('expected' in cause || 'actual' in cause) {
    failure.expected = show(portable(cause.expected));
    failure.actual = show(portable(cause.actual));
    failure.operator = cause.operator;
  }
  return failure;
}

const STDERR_LIMIT = 16_000;

/** What a file that crashed wrote before dying names the error: its first error line. */
function crashFailure(stderr, fallback) {
  const line = stderr.split('\n').find((text) => /^(FATAL ERROR: |# Fatal |\w*Error\b)/.test(text));
  return { ...fallback, message: line ?? fallback?.message ?? 'the test file crashed', stack: stderr || fallback?.stack };
}

export default async function* jsonLines(source) {
  const stderr = new Map();
  // Children are reported before their parents: a bucket per nesting level gathers them until
  // the enclosing suite is reported and prefixes its name.
  const buckets = new Map();
  const bucketOf = (file, nesting) => {
    const key = `${file}\0${nesting}`;
    if (!buckets.has(key)) buckets.set(key, []);
    return buckets.get(key);
  };
  for await (const event of source) {
    if (event.type === 'test:stderr') {
      const text = (stderr.get(resolve(event.data.file)) ?? '') + event.data.message;
      stderr.set(resolve(event.data.file), text.slice(0, STDERR_LIMIT));
      continue;
    }
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { data } = event;
    // Node 18 names the files of tests loaded as ES modules by their URL.
    const file = data.file?.startsWith('file:') ? fileURLToPath(data.file) : (data.file ?? '');
    const children = bucketOf(file, data.nesting + 1).splice(0);
    const own = bucketOf(file, data.nesting);
    if (children.length > 0 || data.details?.type === 'suite') {
      for (const child of children) own.push({ ...child, titlePath: [data.name, ...child.titlePath] });
      // A suite that failed with no failing child broke in its own body or hooks.
      if (event.type === 'test:fail' && !children.some((child) => child.status !== 'pass' && child.status !== 'skip')) {
        own.push({
          file,
          titlePath: [data.name, '(suite)'],
          status: 'error',
          durationMs: data.details?.duration_ms ?? 0,
          failure: failureOf(data.details?.error),
        });
      }
    } else {
      const error = data.details?.error;
      const status =
        data.skip !== undefined || data.todo !== undefined
          ? 'skip'
          : event.type === 'test:pass'
            ? 'pass'
            : error?.failureType === 'testTimeoutFailure'
              ? 'timeout'
              : 'fail';
      // A file that crashes is reported as a test named after the file itself: by its absolute path
      // on Node 20, by the path relative to the working directory on Node 22 (as its stderr is).
      if (data.nesting === 0 && file !== '' && resolve(data.name) === resolve(file)) {
        const failure = status === 'fail' ? crashFailure(stderr.get(resolve(file)) ?? '', failureOf(error)) : failureOf(error);
        // A file that ran out of memory says so in its failure, which swesynth reads as its own verdict.
        own.push({
          file,
          titlePath: ['(file)'],
          status: status === 'fail' ? 'error' : status,
          durationMs: data.details?.duration_ms ?? 0,
          failure,
        });
      } else {
        own.push({ file, titlePath: [data.name], status, durationMs: data.details?.duration_ms ?? 0, failure: failureOf(error) });
      }
    }
    if (data.nesting === 0) {
      for (const result of own.splice(0)) yield `${JSON.stringify(result)}\n`;
    }
  }
  // Tells a complete report from one cut short by a process that exited early.
  yield `${JSON.stringify({ end: true })}\n`;
}
