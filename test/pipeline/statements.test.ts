import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageOf } from '../../pipeline/stages/issues.js';
import { STATEMENT_STYLES, styleFor, type StatementInput, type StatementStyle } from '../../pipeline/statements/input.js';
import { dialectOf } from '../../pipeline/statements/node-assert.js';
import { caseTexts, type Repro } from '../../pipeline/statements/repro.js';
import { writeStatement } from '../../pipeline/statements/statement.js';
import { runnerNamed } from '../../pipeline/runners/index.js';
import { informativeness, primaryFailure } from '../../pipeline/statements/symptom.js';
import { leakIn } from '../../pipeline/statements/leak-check.js';
import type { FailedTest } from '../../pipeline/store/records.js';
import { tempDir } from '../helpers.js';

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
  it('refuses an inverted range', () => {
    assert.throws(() => clamp(1, 5, 0), RangeError);
  });
});
`;

function failed(
  line: number,
  failure: Partial<FailedTest['failure']> & { message: string },
  title = 'returns the upper bound for values above it',
): FailedTest {
  return {
    candidateId: 'c1',
    testId: `test/math.test.js::clamp > ${title}`,
    file: 'test/math.test.js',
    titlePath: ['clamp', title],
    status: 'fail',
    failure: { location: { file: 'test/math.test.js', line, column: 12 }, ...failure },
  };
}

const wrongValue = failed(9, {
  message: 'Expected values to be strictly equal',
  name: 'AssertionError',
  expected: '10',
  actual: '0',
  operator: 'strictEqual',
});
const thrown = failed(12, { message: 'empty range', name: 'RangeError' }, 'rejects an empty range with a clear error');
const notThrown = failed(
  15,
  {
    message: 'Missing expected exception (RangeError).',
    name: 'AssertionError',
    expected: 'undefined',
    actual: 'undefined',
    operator: 'throws',
  },
  'refuses an inverted range',
);
/** A test that never reported: its file crashed, and the crash's error stands in for it. */
const crashed: FailedTest = {
  ...failed(0, { message: 'Cannot find module' }),
  status: 'missing',
  failure: { message: 'Cannot find module', name: 'Error' },
};

function input(failedTests: FailedTest[], overrides: Partial<StatementInput> = {}): StatementInput {
  return {
    failed: failedTests,
    readTest: (file) => (file === 'test/math.test.js' ? TEST_FILE : undefined),
    forbidden: [],
    packageName: 'mathlib',
    entryPoints: ['dist/index.js'],
    packageVersion: '2.1.0',
    nodeVersion: '20.11.1',
    style: 'terse',
    assertDialect: dialectOf([runnerNamed('node-test').vocabulary]),
    ...overrides,
  };
}

/** The statement with its repro as Node runs it (the issues stage shows it only once it ran as the statement says). */
const write = (statementInput: StatementInput) =>
  writeStatement(statementInput, (repro: Repro) => ('code' in repro.script ? repro.script : null));

const bodyOf = (statement: ReturnType<typeof writeStatement>): string => ('body' in statement ? statement.body : statement.rejected);

describe('problem statements', () => {
  it('say what the public call returned against what was expected, with a repro that imports the package by name', () => {
    expect(write(input([wrongValue]))).toEqual({
      title: '`clamp(15, low, high)` returns `0` instead of `10`',
      body: [
        '`clamp(15, low, high)` returns `0` instead of `10`',
        '',
        'Expected `10`, got `0`.',
        '',
        'Repro with mathlib@2.1.0:',
        '',
        '```js',
        "import assert from 'node:assert/strict';",
        "import { clamp } from 'mathlib/src/math.js';",
        '',
        'const limits = [0, 10];',
        '',
        'const [low, high] = limits;',
        'assert.equal(clamp(15, low, high), 10);',
        '```',
        '',
      ].join('\n'),
    });
  });

  it('show a value that spans lines in a block of its own', () => {
    const statement = write(input([failed(9, { message: 'x', name: 'AssertionError', expected: 'Array [\n  10,\n]', actual: '0' })]));
    expect(bodyOf(statement)).toContain('Expected:\n\n```\nArray [\n  10,\n]\n```\n\nGot `0`.');
    expect(statement).toHaveProperty('title', '`clamp(15, low, high)` returns a wrong value');
  });

  it('name the call that threw and the error', () => {
    expect(write(input([thrown]))).toMatchObject({ title: '`clamp(1, 5, 0)` throws RangeError: empty range' });
  });

  it('are rejected when no failing test said what went wrong', () => {
    expect(write(input([{ ...wrongValue, failure: undefined }]))).toEqual({
      rejected: 'no failing test reported any failure details',
    });
  });
});

describe('the failure a statement is written from', () => {
  it('ranks compared values over a thrown error, over another failed check, over a crash, over no details', () => {
    const ranks = [wrongValue, thrown, notThrown, crashed, { ...wrongValue, failure: undefined }].map(informativeness);
    expect(ranks).toEqual([...ranks].sort((a, b) => b - a));
    expect(new Set(ranks).size).toBe(ranks.length);
    expect(ranks.at(-1)).toBe(0);
  });

  it('is the most informative one, wherever the runner reported it', () => {
    expect(primaryFailure([crashed, notThrown, thrown, wrongValue])).toBe(wrongValue);
    expect(primaryFailure([crashed, notThrown, thrown])).toBe(thrown);
    expect(write(input([crashed, notThrown, thrown]))).toMatchObject({ title: '`clamp(1, 5, 0)` throws RangeError: empty range' });
  });

  it('prefers one with a location among failures of a kind, else the first reported', () => {
    const unlocated = { ...thrown, failure: { ...thrown.failure!, location: undefined } };
    expect(primaryFailure([unlocated, thrown])).toBe(thrown);
    const second = { ...thrown, testId: 'another' };
    expect(primaryFailure([thrown, second])).toBe(thrown);
  });

  it('speaks of a missing exception by the class the code should have thrown', () => {
    expect(write(input([notThrown]))).toMatchObject({ title: '`clamp(1, 5, 0)` does not throw RangeError' });
  });

  it('names the function its suite is named after for a crash without a repro, else the package', () => {
    const statement = write(input([crashed]));
    expect(statement).toMatchObject({ title: '`clamp` throws Error: Cannot find module' });
    expect(bodyOf(statement)).not.toContain('```js');
    const untitled = { ...crashed, titlePath: ['with limits', 'are kept'] };
    expect(write(input([untitled]))).toMatchObject({ title: '`mathlib` throws Error: Cannot find module' });
    // A script's one test is titled with its file's name: no function, and no statement that names the test.
    const script = { ...crashed, titlePath: ['tests.js'] };
    expect(write(input([script]))).toMatchObject({ title: '`mathlib` throws Error: Cannot find module' });
  });

  it("reads expect's missing exception and rejection as such, whatever values the runner printed", () => {
    const vitestThrow = {
      message: 'expected [Function] to throw an error',
      name: 'AssertionError',
      expected: 'undefined',
      actual: 'undefined',
    };
    expect(write(input([failed(15, vitestThrow, 'refuses an inverted range')]))).toMatchObject({
      title: '`clamp(1, 5, 0)` does not throw',
    });
    const jestThrow = { message: 'expect(received).toThrow()\n\nReceived function did not throw', name: 'Error' };
    expect(write(input([failed(15, jestThrow, 'refuses an inverted range')]))).toMatchObject({
      title: '`clamp(1, 5, 0)` does not throw',
    });
    const resolved = {
      message: 'promise resolved "1" instead of rejecting',
      name: 'AssertionError',
      expected: '[Error: rejected promise]',
      actual: '1',
    };
    expect(write(input([failed(15, resolved, 'refuses an inverted range')]))).toMatchObject({
      title: '`clamp(1, 5, 0)` does not reject',
    });
  });

  it("reads expect's unwanted exception as the error the code threw, not as the assertion's words", () => {
    const jestUnwanted = {
      message:
        'expect(received).not.toThrow()\n\nError name:    "RangeError"\nError message: "empty range"\n\n      at clamp (src/math.js:3:11)',
      name: 'Error',
    };
    expect(write(input([failed(15, jestUnwanted, 'refuses an inverted range')]))).toMatchObject({
      title: '`clamp(1, 5, 0)` throws RangeError: empty range',
    });
    const chaiUnwanted = {
      message: "expected [Function] to not throw an error but 'RangeError: empty range' was thrown",
      name: 'AssertionError',
    };
    expect(write(input([failed(15, chaiUnwanted, 'refuses an inverted range')]))).toMatchObject({
      title: '`clamp(1, 5, 0)` throws RangeError: empty range',
    });
  });

  it('never shows expected and actual that print the same', () => {
    const same = { message: 'expected 10 to deeply equal 10', name: 'AssertionError', expected: '10', actual: '10' };
    const statement = write(input([failed(9, same)]));
    expect(statement).toMatchObject({ title: '`clamp(15, low, high)` fails with expected 10 to deeply equal 10' });
    expect(bodyOf(statement)).not.toContain('instead of');
  });
});

describe('repro imports', () => {
  const withImport = (from: string) => `import assert from 'node:assert/strict';
import { parse } from '${from}';

test('parses', () => {
  assert.equal(parse('1'), 1);
});
`;
  const statementFor = (text: string, entryPoints: string[], file = 'test/parse.test.js') =>
    bodyOf(
      write(
        input([{ ...failed(5, { message: 'x', expected: '1', actual: '2' }), file }], {
          readTest: () => text,
          entryPoints,
          packageName: '@acme/parser',
        }),
      ),
    );

  it('import the entry file by the package name, whether the test imports its source or the manifest names the build', () => {
    expect(statementFor(withImport('../src/index.ts'), ['dist/index.js'])).toContain("import { parse } from '@acme/parser';");
    expect(statementFor(withImport('../lib/parser.js'), ['lib/parser.js'])).toContain("import { parse } from '@acme/parser';");
    expect(statementFor(withImport('..'), ['index.js'])).toContain("import { parse } from '@acme/parser';");
    expect(statementFor(withImport('./index'), ['src/index.mjs'], 'src/parse.test.ts')).toContain("import { parse } from '@acme/parser';");
  });

  it('import any other file by its path under the package name, and leave packages alone', () => {
    expect(statementFor(withImport('../src/parse.js'), ['dist/index.js'])).toContain("import { parse } from '@acme/parser/src/parse.js';");
    expect(statementFor(withImport('../src/util/index.js'), ['dist/index.js'])).toContain(
      "import { parse } from '@acme/parser/src/util/index.js';",
    );
    expect(statementFor(withImport('other-package'), ['dist/index.js'])).toContain("import { parse } from 'other-package';");
  });

  it('rename CommonJS requires in the fixtures, destructured ones too', () => {
    const text = `const test = require('tape');
const qs = require('../');
const { format } = require("../lib/format");

test('parse()', (t) => {
  t.deepEqual(qs.parse(format('0=foo')), { 0: 'foo' });
});
`;
    const statement = write(
      input([{ ...failed(6, { message: 'x', expected: "{ '0': 'foo' }", actual: '{}' }), file: 'test/parse.js' }], {
        readTest: () => text,
        packageName: 'qs',
        entryPoints: ['lib/index.js'],
        assertDialect: dialectOf([runnerNamed('tape').vocabulary]),
      }),
    );
    expect(bodyOf(statement)).toContain(`const qs = require('qs');\nconst { format } = require("qs/lib/format");`);
    expect(bodyOf(statement)).not.toContain("require('tape')");
  });
});

describe('titles', () => {
  const statementFor = (
    body: string,
    line: number,
    failure: Partial<FailedTest['failure']> & { message: string },
    style: StatementStyle = 'terse',
  ) => {
    const text = `import assert from 'node:assert/strict';
import { ShoppingCart, chunk, load } from '../src/index.js';

it('does the thing the test is named for', async () => {
${body}
});
`;
    return write(
      input([{ ...failed(line, failure), titlePath: ['does the thing the test is named for'] }], {
        readTest: () => text,
        entryPoints: ['src/index.js'],
        style,
      }),
    );
  };

  it('name a method by its class, not by the variable the test holds it in', () => {
    const statement = statementFor("  const cart = new ShoppingCart();\n  cart.add('a', 75.5);\n  assert.equal(cart.total(), 85);", 7, {
      message: 'x',
      expected: '85',
      actual: '115',
    });
    expect(statement).toMatchObject({ title: '`ShoppingCart.total()` returns `115` instead of `85`' });
    expect(bodyOf(statement)).toContain("import { ShoppingCart } from 'mathlib';");
  });

  it('name the call a checked value came from', () => {
    const statement = statementFor('  const result = chunk([1, 2, 3], 2);\n  assert.equal(result.length, 2);', 6, {
      message: 'x',
      expected: '2',
      actual: '1',
    });
    expect(statement).toMatchObject({ title: 'After `chunk([1, 2, 3], 2)`, `result.length` is `1` instead of `2`' });
  });

  it('name the call a value was handed along from, through another name', () => {
    const statement = statementFor('  const pending = load(2);\n  const loaded = await pending;\n  assert.deepEqual(loaded, [2]);', 7, {
      message: 'x',
      expected: '[ 2 ]',
      actual: '[]',
    });
    expect(statement).toMatchObject({ title: '`load(2)` resolves to `[]` instead of `[ 2 ]`' });
  });

  it('name the call behind a value an assertion compares with another', () => {
    const statement = statementFor('  const min = chunk([1, 2, 3], 2);\n  assert.ok(min === 2 || min.length === 2);', 6, {
      message: 'x',
      expected: '2',
      actual: 'null',
    });
    expect(statement).toMatchObject({ title: '`chunk([1, 2, 3], 2)` returns `null` instead of `2`' });
  });

  it('say an awaited call resolves to its value', () => {
    const statement = statementFor("  assert.deepEqual(await load('a.conf'), { x: 1 });", 5, {
      message: 'x',
      expected: '{ x: 1 }',
      actual: 'null',
    });
    expect(statement).toMatchObject({ title: "`load('a.conf')` resolves to `null` instead of `{ x: 1 }`" });
  });

  it("name a checked part of a call's result by the call", () => {
    const statement = statementFor('  assert.equal(chunk([], 1).length, 0);', 5, { message: 'x', expected: '0', actual: '1' });
    expect(statement).toMatchObject({ title: '`chunk([], 1).length` is `1` instead of `0`' });
  });

  it('drop long arguments and keep the function name', () => {
    const long = 'chunk([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18], 4)';
    expect(statementFor(`  assert.equal(${long}, 5);`, 5, { message: 'x', expected: '5', actual: '4' })).toMatchObject({
      title: '`chunk` returns `4` instead of `5`',
    });
    expect(statementFor(`  assert.equal(${long}.length, 5);`, 5, { message: 'x', expected: '5', actual: '4' })).toMatchObject({
      title: '`chunk(…).length` is `4` instead of `5`',
    });
  });

  it('never name the test or speak of tests, in any style', () => {
    for (const style of STATEMENT_STYLES) {
      const statement = statementFor(
        '  const result = chunk([], 1);\n  assert.deepEqual(result, []);',
        6,
        { message: 'x', expected: '[]', actual: '[ [] ]' },
        style,
      );
      expect(statement).toMatchObject({ title: '`chunk([], 1)` returns `[ [] ]` instead of `[]`' });
      expect(JSON.stringify(statement)).not.toMatch(/\btests?\b|named for/i);
    }
  });
});

describe('styles', () => {
  it('write three different bodies from one failure, each with the title first and the repro', () => {
    const bodies = STATEMENT_STYLES.map((style) => bodyOf(write(input([wrongValue], { style }))));
    expect(new Set(bodies).size).toBe(3);
    for (const body of bodies) {
      expect(body.startsWith('`clamp(15, low, high)` returns `0` instead of `10`\n\n')).toBe(true);
      expect(body).toContain("```js\nimport assert from 'node:assert/strict';\nimport { clamp } from 'mathlib/src/math.js';");
    }
    const [, detailed, story] = bodies;
    expect(detailed).toMatch(
      /### What I did[\s\S]*### Expected\n\n`10`\n\n### Actual\n\n`0`\n\n### Reproduction[\s\S]*### Environment\n\n- mathlib 2.1.0\n- Node.js 20.11.1\n$/,
    );
    expect(story).toContain("I'm using mathlib 2.1.0 in a project, and when I call `clamp(15, low, high)`, I get `0` instead of `10`.");
  });

  it('are chosen from the candidate id: the same every time, and all of them across candidates', () => {
    expect(styleFor('3075f0847b55')).toBe(styleFor('3075f0847b55'));
    const styles = new Set(Array.from({ length: 30 }, (_, index) => styleFor(`candidate-${index}`)));
    expect([...styles].sort()).toEqual([...STATEMENT_STYLES].sort());
  });
});

describe('the leak check', () => {
  const forbidden = ['returns the upper bound for values above it', 'test/math.test.js', 'math.test.js'];

  it('lets a statement through that shows none of the forbidden texts', () => {
    expect(write(input([wrongValue], { forbidden }))).toHaveProperty('title');
  });

  it('rejects a statement showing a forbidden text in any case, spacing or quoting, with or without a trailing semicolon', () => {
    for (const secret of [
      '  const [low, high] = limits;',
      'const [ low,high ]=limits',
      'CLAMP(15, LOW,\n    HIGH)',
      'assert.equal(clamp(15, low, high), 10),',
      'import assert from "node:assert/strict"',
    ]) {
      expect(write(input([wrongValue], { forbidden: [...forbidden, secret] }))).toEqual({
        rejected: `the statement would reveal "${secret.trim()}"`,
      });
    }
  });

  it("takes a test file's name alone as no part of a longer path: the module of the same name may be imported", () => {
    expect(leakIn({ title: 't', body: "const subset = require('semver/ranges/subset.js');" }, ['subset.js'])).toBeNull();
    expect(leakIn({ title: 't', body: 'It fails in subset.js too.' }, ['subset.js'])).toBe('subset.js');
  });

  it("takes a test title made from a case's input for that input, and a title written as one for a title", () => {
    const file = `import { expect, it, test } from 'vitest';
const cases = [{ input: './?foo=123#hash', out: './?foo=123#hash' }, { input: \`//example.com\`, out: '' }];
for (const c of cases) test(c.input, () => expect(normalize(c.input)).toBe(c.out));
it('keeps the query and the hash of a relative URL', () => expect(normalize('./?a=1#h')).toBe('./?a=1#h'));
test.each([['callto://+1234567890']])('%s', (input) => expect(normalize(input)).toBe(input));
`;
    const texts = caseTexts('test/normalize.test.ts', file);
    for (const input of ['./?foo=123#hash', '//example.com', './?a=1#h', 'callto://+1234567890']) expect(texts).toContain(input);
    expect(texts).not.toContain('keeps the query and the hash of a relative URL');
    expect(texts).not.toContain('%s');
    expect(caseTexts('test/broken.test.js', 'it(')).toEqual(new Set());
  });

  it('ignores forbidden texts too short to give anything away', () => {
    expect(write(input([wrongValue], { forbidden: ['low', '  limits  ', '} else {'] }))).toHaveProperty('title');
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
    const tapeFailure: FailedTest = {
      candidateId: 'c2',
      testId: 'test/parse.js::parse() > parses a simple string',
      file: 'test/parse.js',
      titlePath: ['parse()', 'parses a simple string'],
      status: 'fail',
      failure: {
        message: 'a numeric key',
        expected: "{ '0': 'foo' }",
        actual: '{}',
        location: { file: 'test/parse.js', line: 6, column: 8 },
      },
    };
    const statement = write(
      input([tapeFailure], {
        readTest: () => text,
        forbidden: ['parses a simple string', 'test/parse.js'],
        packageName: 'qs',
        entryPoints: ['lib/index.js'],
        assertDialect: dialectOf([runnerNamed('tape').vocabulary]),
      }),
    );
    expect(statement).toMatchObject({ title: "`qs.parse('0=foo')` returns `{}` instead of `{ '0': 'foo' }`" });
    // tape's assertion as Node's, so that the repro runs with Node alone.
    expect(bodyOf(statement)).toContain(
      "const assert = require('node:assert');\n\nvar qs = require('qs');\n\nassert.deepStrictEqual(qs.parse('0=foo'), { 0: 'foo' });",
    );
  });

  it('take the subject of expect(...)', () => {
    const text = `import { expect, test } from 'vitest';
import { ms } from '../src/index';

test('converts hours', () => {
  expect(ms('1h')).toBe(3600000);
});
`;
    const jestFailure: FailedTest = {
      candidateId: 'c3',
      testId: 'src/index.test.ts::converts hours',
      file: 'src/index.test.ts',
      titlePath: ['converts hours'],
      status: 'fail',
      // jest names its assertion errors plain Error.
      failure: {
        name: 'Error',
        message: 'expect(received).toBe(expected) // Object.is equality',
        expected: '3600000',
        actual: '60000',
        location: { file: 'src/index.test.ts', line: 5, column: 20 },
      },
    };
    const statement = write(
      input([jestFailure], {
        readTest: () => text,
        packageName: 'ms',
        entryPoints: ['dist/index.cjs'],
        assertDialect: dialectOf([runnerNamed('vitest').vocabulary]),
      }),
    );
    expect(statement).toMatchObject({ title: "`ms('1h')` returns `60000` instead of `3600000`" });
    expect(bodyOf(statement)).toContain(
      "import assert from 'node:assert';\nimport { ms } from 'ms';\nassert.strictEqual(ms('1h'), 3600000);",
    );
    expect(bodyOf(statement)).not.toContain("from 'vitest'");
  });
});

describe('the failing assertion inside a loop, a branch or a chain', () => {
  const TAP_FILE = `const t = require('tap');
const Range = require('../../classes/range');
const cases = require('../fixtures/range-parse');
const excluded = require('../fixtures/range-exclude');

t.test('range parsing', (t) => {
  cases.forEach(([range, expect, options]) => {
    if (expect === null) {
      t.throws(() => new Range(range, options), TypeError);
    } else {
      t.equal(new Range(range, options).range || '*', expect, 'parses');
    }
  });
  t.end();
});

t.test('negative range tests', (t) => {
  excluded.forEach(([range, ver, options]) => {
    const r = new Range(range, options);
    t.notOk(r.test(ver), \`\${range} not satisfied by \${ver}\`);
  });
  t.end();
});
`;
  const tapFailure = (line: number, titlePath: string[], failure: { message: string; expected?: string; actual?: string }): FailedTest => ({
    candidateId: 'c4',
    testId: `test/classes/range.js::${titlePath.join(' > ')}`,
    file: 'test/classes/range.js',
    titlePath,
    status: 'fail',
    failure: { ...failure, location: { file: 'test/classes/range.js', line, column: 9 } },
  });
  const writeTap = (test: FailedTest, text = TAP_FILE) =>
    write(
      input([test], {
        readTest: () => text,
        packageName: 'semver',
        entryPoints: ['index.js'],
        assertDialect: dialectOf([runnerNamed('tap').vocabulary]),
      }),
    );

  it('take the subject of the assertion the failure points to, not the loop around it', () => {
    const statement = writeTap(
      tapFailure(11, ['range parsing'], { message: 'parses', expected: "'<0.1.0-0'", actual: "'>=0.0.0 <0.1.0-0'" }),
    );
    expect(statement).toMatchObject({ title: "`new Range(range, options).range` is `'>=0.0.0 <0.1.0-0'` instead of `'<0.1.0-0'`" });
  });

  it('name a method by the class a variable declared inside the loop holds', () => {
    const statement = writeTap(tapFailure(20, ['negative range tests'], { message: '^0.0.3 not satisfied by 0.0.3-alpha' }));
    expect('title' in statement && statement.title).toContain('`Range.test(ver)`');
    expect(bodyOf(statement)).toContain("const Range = require('semver/classes/range');");
  });

  it('take an assertion at the top of the file, outside any test, as the test', () => {
    const text = `const t = require('tap');
const subset = require('../../ranges/subset');
const cases = [
  ['^1.2.3', '1.x', true],
  ['1 <=1.2.3-pre.0', '>=1.0.0-0', false],
];

t.plan(cases.length);
cases.forEach(([sub, dom, expect]) => {
  t.equal(subset(sub, dom), expect, \`\${sub} ⊂ \${dom}\`);
});
`;
    const failure = { ...tapFailure(10, ['(file)'], { message: '1 <=1.2.3-pre.0 ⊂ >=1.0.0-0', expected: 'false', actual: 'true' }) };
    const statement = writeTap(failure, text);
    expect(statement).toMatchObject({ title: '`subset(sub, dom)` returns `true` instead of `false`' });
    expect(bodyOf(statement)).toContain(
      "const subset = require('semver/ranges/subset');\nconst cases = [\n  ['^1.2.3', '1.x', true],\n  ['1 <=1.2.3-pre.0', '>=1.0.0-0', false],\n];\n\ncases.forEach(([sub, dom, expect]) => {\n  assert.strictEqual(subset(sub, dom), expect);\n});",
    );
  });

  it("find the assertion of a test that asserts once when the runner gives no location, and read tap's missing exception", () => {
    const text = `const { test } = require('tap');
const Comparator = require('../../classes/comparator');

test('invalid comparator parse throws', (t) => {
  t.throws(() => new Comparator('foo bar baz'), new TypeError('Invalid comparator: foo bar baz'));
  t.end();
});
`;
    const { location: _, ...unlocated } = tapFailure(5, ['invalid comparator parse throws'], {
      message: 'expected to throw: TypeError Invalid comparator: foo bar baz',
      expected: '{}',
      actual: 'undefined',
    }).failure!;
    const failure = { ...tapFailure(5, ['invalid comparator parse throws'], unlocated), failure: unlocated };
    expect(writeTap(failure, text)).toMatchObject({ title: "`new Comparator('foo bar baz')` does not throw TypeError" });
  });

  it("take the assertion inside a test whose callback is an expression, and a path require.resolve names as the package's", () => {
    const text = `const t = require('tap');
const { spawn } = require('child_process');
const bin = require.resolve('../../bin/semver');
const run = (args) => new Promise((resolve) => {
  const c = spawn(process.execPath, [bin, ...args]);
  c.on('close', (code) => resolve({ code }));
});

t.test('args with equals', (t) => Promise.all([['-i', 'major', '1.0.0']].map(async (args) => {
  const res = await run(args);
  t.equal(res.code, 0);
})));
`;
    const statement = writeTap(tapFailure(11, ['args with equals'], { message: 'should be equal', expected: '0', actual: '1' }), text);
    expect(statement).toMatchObject({ title: 'After `run(args)`, `res.code` is `1` instead of `0`' });
    expect(bodyOf(statement)).toContain("const bin = require.resolve('semver/bin/semver');");
  });

  it("take the value before should's chain as the one checked", () => {
    const text = `import parser from '../lib/index.js';

describe('parser', () => {
  it('reads a flag', () => {
    const argv = parser(['--foo', 'bar']);
    argv.should.deep.equal({ _: [], foo: 'baz' });
  });
});
`;
    const statement = write(
      input(
        [
          {
            ...tapFailure(6, ['parser', 'reads a flag'], {
              message: 'expected',
              expected: "{ _: [], foo: 'baz' }",
              actual: "{ _: [], foo: 'bar' }",
            }),
            file: 'test/parser.js',
          },
        ],
        {
          readTest: () => text,
          packageName: 'args',
          entryPoints: ['lib/index.js'],
        },
      ),
    );
    expect(statement).toMatchObject({
      title: "`parser(['--foo', 'bar'])` returns `{ _: [], foo: 'bar' }` instead of `{ _: [], foo: 'baz' }`",
    });
  });
});

describe('the package a repro imports', () => {
  function workspaceWith(manifest: object | null): string {
    const dir = join(tempDir('package'), 'repo');
    mkdirSync(dir, { recursive: true });
    if (manifest) writeFileSync(join(dir, 'package.json'), JSON.stringify(manifest));
    return dir;
  }

  it('is named by package.json, with its entry files from main, module and the "." export', () => {
    const dir = workspaceWith({
      name: '@acme/widgets',
      main: './dist/index.cjs',
      module: 'dist/index.mjs',
      exports: { '.': { import: './dist/index.mjs', require: ['./dist/index.cjs'] }, './extra': './dist/extra.js' },
    });
    expect(packageOf(dir, 'acme/widgets', '3.0.0')).toEqual({
      name: '@acme/widgets',
      version: '3.0.0',
      entryPoints: ['./dist/index.cjs', 'dist/index.mjs', './dist/index.mjs', './dist/index.cjs'],
    });
    expect(packageOf(workspaceWith({ name: 'x', exports: { default: './main.js' } }), 'a/x', '1.0.0').entryPoints).toEqual(['./main.js']);
  });

  it("falls back to the repository's name and Node's default entry", () => {
    expect(packageOf(workspaceWith(null), 'acme/widgets', '0.0.0')).toEqual({
      name: 'widgets',
      version: '0.0.0',
      entryPoints: ['index.js'],
    });
  });
});
