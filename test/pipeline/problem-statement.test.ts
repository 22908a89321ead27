import { describe, expect, it } from 'vitest';
import { writeStatement } from '../../pipeline/problem-statement.js';
import type { FailedTest } from '../../pipeline/records.js';

const TEST_FILE = `import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { clamp, unused } from '../src/math.js';

describe('clamp', () => {
  const limits = [0, 10];
  it('returns the upper bound for values above it', () => {
    const [low, high] = limits;
    assert.equal(clamp(15, low, high), 10);
  });
  it('rejects an empty range with a clear error', () => {
    clamp(1, 5, 0);
  });
});
`;

function failed(line: number, failure: Partial<FailedTest['failure']> & { message: string }, title = 'returns the upper bound for values above it'): FailedTest {
  return {
    candidateId: 'c1',
    testId: `test/math.test.js::clamp > ${title}`,
    file: 'test/math.test.js',
    titlePath: ['clamp', title],
    status: 'fail',
    failure: { location: { file: 'test/math.test.js', line, column: 12 }, ...failure },
  };
}

const read = (file: string) => (file === 'test/math.test.js' ? TEST_FILE : undefined);

describe('problem statements', () => {
  it('say what the call returned against what was expected, with a repro from the test body and its fixtures', () => {
    const statement = writeStatement({
      failed: [failed(9, { message: 'Expected values to be strictly equal', name: 'AssertionError', expected: '10', actual: '0', operator: 'strictEqual' })],
      readTest: read,
      forbidden: [],
    });
    expect(statement).toEqual({
      title: '`clamp(15, low, high)` returns `0` instead of `10`',
      body: [
        '`clamp(15, low, high)` returns `0` instead of `10`.',
        '',
        'To reproduce:',
        '',
        '```js',
        "import assert from 'node:assert/strict';",
        "import { clamp } from './src/math.js';",
        '',
        'const limits = [0, 10];',
        '',
        'const [low, high] = limits;',
        'assert.equal(clamp(15, low, high), 10);',
        '```',
        '',
        'Expected: `10`',
        '',
        'Actual: `0`',
        '',
      ].join('\n'),
    });
  });

  it('show a value that spans lines in a block of its own', () => {
    const statement = writeStatement({
      failed: [failed(9, { message: 'x', name: 'AssertionError', expected: 'Array [\n  10,\n]', actual: '0' })],
      readTest: read,
      forbidden: [],
    });
    expect('body' in statement && statement.body).toContain('Expected:\n\n```\nArray [\n  10,\n]\n```\n\nActual: `0`');
  });

  it('name the call that threw and the error', () => {
    const statement = writeStatement({ failed: [failed(12, { message: 'empty range', name: 'RangeError' }, 'rejects an empty range with a clear error')], readTest: read, forbidden: [] });
    expect(statement).toMatchObject({ title: '`clamp(1, 5, 0)` throws RangeError: empty range' });
  });

  it('are rejected when they would reveal a forbidden text (a test title, a test file, a changed line), in any case', () => {
    const failure = failed(9, { message: 'x', name: 'AssertionError', expected: '10', actual: '0' });
    const forbidden = ['returns the upper bound for values above it', 'test/math.test.js', 'math.test.js'];
    expect(writeStatement({ failed: [failure], readTest: read, forbidden })).toHaveProperty('title');
    for (const secret of ['  const [low, high] = limits;', 'CLAMP(15, LOW, HIGH)']) {
      expect(writeStatement({ failed: [failure], readTest: read, forbidden: [...forbidden, secret] })).toEqual({ rejected: `the statement would reveal "${secret.trim()}"` });
    }
  });

  it('are rejected when no failing test said what went wrong', () => {
    expect(writeStatement({ failed: [{ ...failed(9, { message: 'x' }), failure: undefined }], readTest: read, forbidden: [] })).toEqual({
      rejected: 'no failing test reported any failure details',
    });
  });
});

describe('problem statements from other runners', () => {
  it('treat tape and tap subtests as tests, and take the subject of t.deepEqual', () => {
    const text = `var test = require('tape');
var qs = require('../');

test('parse()', function (t) {
  t.test('parses a simple string', function (st) {
    st.deepEqual(qs.parse('0=foo'), { 0: 'foo' }, 'a numeric key');
    st.end();
  });
});
`;
    const failed: FailedTest = {
      candidateId: 'c2',
      testId: 'test/parse.js::parse() > parses a simple string',
      file: 'test/parse.js',
      titlePath: ['parse()', 'parses a simple string'],
      status: 'fail',
      failure: { message: 'a numeric key', expected: "{ '0': 'foo' }", actual: '{}', location: { file: 'test/parse.js', line: 6, column: 8 } },
    };
    const statement = writeStatement({ failed: [failed], readTest: () => text, forbidden: ['parses a simple string', 'test/parse.js'] });
    expect(statement).toMatchObject({ title: "`qs.parse('0=foo')` returns `{}` instead of `{ '0': 'foo' }`" });
    expect('body' in statement && statement.body).toContain("st.deepEqual(qs.parse('0=foo'), { 0: 'foo' }, 'a numeric key');");
  });

  it('take the subject of expect(...)', () => {
    const text = `import { expect, test } from 'vitest';
import { ms } from '../src/index';

test('converts hours', () => {
  expect(ms('1h')).toBe(3600000);
});
`;
    const failed: FailedTest = {
      candidateId: 'c3',
      testId: 'src/index.test.ts::converts hours',
      file: 'src/index.test.ts',
      titlePath: ['converts hours'],
      status: 'fail',
      // jest names its assertion errors plain Error.
      failure: { name: 'Error', message: 'expect(received).toBe(expected) // Object.is equality', expected: '3600000', actual: '60000', location: { file: 'src/index.test.ts', line: 5, column: 20 } },
    };
    const statement = writeStatement({ failed: [failed], readTest: () => text, forbidden: [] });
    expect(statement).toMatchObject({ title: "`ms('1h')` returns `60000` instead of `3600000`" });
    expect('body' in statement && statement.body).toContain("import { ms } from './src/index';");
    expect('body' in statement && statement.body).not.toContain("from 'vitest'");
  });
});
