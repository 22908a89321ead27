import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runnerNamed } from '../../pipeline/runners/index.js';
import type { StatementInput } from '../../pipeline/statements/input.js';
import { dialectOf } from '../../pipeline/statements/node-assert.js';
import { reproFor } from '../../pipeline/statements/repro.js';
import type { FailedTest } from '../../pipeline/store/records.js';

/** The repro of the test that fails at `line` of `text`, written for Node alone, in a repository tested with `runner`. */
function scriptFor(runner: string, text: string, line: number, file = 'test/clamp.test.js') {
  const failed: FailedTest = {
    candidateId: 'c1',
    testId: `${file}::clamp`,
    file,
    titlePath: ['clamp'],
    status: 'fail',
    failure: { message: 'x', location: { file, line, column: 3 } },
  };
  const input: StatementInput = {
    failed: [failed],
    readTest: () => text,
    forbidden: [],
    packageName: 'clamp-lib',
    entryPoints: ['index.js'],
    packageVersion: '1.0.0',
    style: 'terse',
    assertDialect: dialectOf([runnerNamed(runner).vocabulary]),
  };
  return reproFor(input, failed)!.script;
}

describe('repros for Node alone', () => {
  it("write jest's matchers with Node's assert, negated and awaited ones too", () => {
    const text = `const { clamp, load } = require('../index.js');

test('clamp', async () => {
  expect(clamp(1, 0, 2)).not.toBe(2);
  expect(clamp(-1, 0, 2) + 1).toEqual(1);
  expect(clamp(0, 0, 2) || 1).toHaveLength(0);
  await expect(load('x')).rejects.toThrow('missing');
  expect(() => clamp(1, 2, 0)).toThrow(RangeError);
  expect(clamp(15, 0, 10)).toBe(10);
});
`;
    expect(scriptFor('jest', text, 9)).toEqual({
      module: 'cjs',
      code: [
        "const assert = require('node:assert');",
        '',
        '(async () => {',
        "  const { clamp, load } = require('clamp-lib');",
        '',
        '  assert.notStrictEqual(clamp(1, 0, 2), 2);',
        '  assert.deepEqual(clamp(-1, 0, 2) + 1, 1);',
        '  assert.strictEqual((clamp(0, 0, 2) || 1).length, 0);',
        "  await assert.rejects(load('x'));",
        '  assert.throws(() => clamp(1, 2, 0));',
        '  assert.strictEqual(clamp(15, 0, 10), 10);',
        '})();',
      ].join('\n'),
    });
  });

  it("write vitest's chai chains, and strip TypeScript's types", () => {
    const text = `import { describe, expect, it } from 'vitest';
import { clamp } from '../src/index';

describe('clamp', () => {
  it('clamps', () => {
    const value: number = clamp(15, 0, 10);
    expect(value).to.be.a.number;
    expect(value).to.equal(10);
  });
});
`;
    expect(scriptFor('vitest', text, 8, 'test/clamp.test.ts')).toEqual({ unrunnable: 'the matcher `to.be.a.number` has no Node.js form' });
    const plain = text.replace('    expect(value).to.be.a.number;\n', '');
    expect(scriptFor('vitest', plain, 7, 'test/clamp.test.ts')).toEqual({
      module: 'esm',
      code: [
        "import assert from 'node:assert';",
        "import { clamp } from 'clamp-lib';",
        'const value = clamp(15, 0, 10);',
        'assert.strictEqual(value, 10);',
      ].join('\n'),
    });
  });

  it("leave out tape's plan and end, and write its assertions with Node's", () => {
    const text = `const test = require('tape');
const clamp = require('..');

test('clamp', (t) => {
  t.plan(2);
  t.ok(clamp(1, 0, 2));
  t.equal(clamp(15, 0, 10), 10, 'clamps to the upper bound');
  t.end();
});
`;
    expect(scriptFor('tape', text, 7)).toEqual({
      module: 'cjs',
      code: [
        "const assert = require('node:assert');",
        '',
        "const clamp = require('clamp-lib');",
        '',
        'assert.ok(clamp(1, 0, 2));',
        'assert.strictEqual(clamp(15, 0, 10), 10);',
      ].join('\n'),
    });
  });

  it("keep assertions of a library the test imports, and Node's own, as they are", () => {
    const chai = `const { expect } = require('chai');
const assert = require('assert');
const clamp = require('../index.js');

it('clamps', () => {
  assert.ok(clamp(1, 0, 2));
  expect(clamp(15, 0, 10)).to.equal(10);
});
`;
    expect(scriptFor('mocha', chai, 7)).toEqual({
      module: 'cjs',
      code: [
        "const { expect } = require('chai');",
        "const assert = require('assert');",
        "const clamp = require('clamp-lib');",
        '',
        'assert.ok(clamp(1, 0, 2));',
        'expect(clamp(15, 0, 10)).to.equal(10);',
      ].join('\n'),
    });
  });

  it('run a test declared in a loop over cases in the same loop, which gives it its values', () => {
    const text = `var assert = require('assert');
var normalize = require('./');

describe('normalize', function() {
  var units = [['a//b', 'a/b'], ['c\\\\d', 'c/d']];
  units.forEach(function(unit) {
    it('should normalize ' + unit[0], function() {
      assert.equal(normalize(unit[0]), unit[1]);
    });
  });
});
`;
    expect(scriptFor('mocha', text, 8, 'test.js')).toEqual({
      module: 'cjs',
      code: [
        "var assert = require('assert');",
        "var normalize = require('clamp-lib');",
        "var units = [['a//b', 'a/b'], ['c\\\\d', 'c/d']];",
        '',
        'units.forEach(function(unit) {',
        '  assert.equal(normalize(unit[0]), unit[1]);',
        '});',
      ].join('\n'),
    });
  });

  it("run a test of a table (it.each, describe.each) over the table's rows, spread as the framework spreads them", () => {
    const text = `import { describe, expect, it } from 'vitest';
import { match } from './index.js';

const MATCH_TESTS = [{ path: '/:a', tests: [{ input: '/x', expected: { a: 'x' } }] }];

describe.each(MATCH_TESTS)('match $path', ({ path, tests }) => {
  it.each(tests)('should match $input', ({ input, expected }: Case) => {
    expect(match(path)(input)).toEqual(expected);
  });
});
`;
    const script = scriptFor('vitest', text, 8, 'src/index.spec.ts');
    expect(script).toMatchObject({ module: 'esm' });
    expect('code' in script && script.code).toContain(
      [
        'for (const row of MATCH_TESTS) {',
        '    const [{ path, tests }] = Array.isArray(row) ? row : [row];',
        '    for (const row of tests) {',
        '        const [{ input, expected }] = Array.isArray(row) ? row : [row];',
        '        assert.deepEqual(match(path)(input), expected);',
      ].join('\n'),
    );
  });

  it("leave out the framework's import, whatever else shares its name: a fixture's path, a method", () => {
    const text = `const { test } = require('tap')
const Range = require('../../classes/range')
const excluded = require('../fixtures/range-exclude.js')

test('negative range tests', (t) => {
  excluded.forEach(([range, ver]) => {
    const r = new Range(range)
    t.notOk(r.test(ver))
  })
  t.end()
})
`;
    expect(scriptFor('tap', text, 8, 'test/classes/range.js')).toEqual({
      module: 'cjs',
      code: [
        "const assert = require('node:assert');",
        '',
        "const Range = require('clamp-lib/classes/range')",
        "const excluded = require('clamp-lib/test/fixtures/range-exclude.js')",
        '',
        'excluded.forEach(([range, ver]) => {',
        '  const r = new Range(range)',
        '  assert.ok(!r.test(ver))',
        '})',
      ].join('\n'),
    });
  });

  it("write a should chain with Node's assert", () => {
    const text = `require('should');
const { parse } = require('../index.js');

it('parses', () => {
  const parsed = parse('s=2');
  parsed.should.have.property('s', 2);
});
`;
    expect(scriptFor('mocha', text, 6)).toMatchObject({ code: expect.stringContaining("assert.deepStrictEqual(parsed['s'], 2);") });
  });

  it('say why a repro cannot run with Node alone: a snapshot, or the test context used for more than asserting', () => {
    const snapshot = `test('clamp', () => {\n  expect(clamp(1, 0, 2)).toMatchSnapshot();\n});\n`;
    expect(scriptFor('jest', snapshot, 2)).toEqual({ unrunnable: 'the matcher `toMatchSnapshot` has no Node.js form' });
    const context = `test('clamp', (t) => {\n  const value = t.context.value;\n  t.is(value, 2);\n});\n`;
    expect(scriptFor('ava', context, 3)).toEqual({ unrunnable: 'it uses `t` of the test framework' });
  });

  it("write jest's and vitest's mock functions with a stand-in that records calls, and the script runs: it fails on the bug, passes on the fix", () => {
    const vitestTest = `import { expect, it, vi } from 'vitest';
import { forEachClamped } from '../src/index';

it('clamps each', () => {
  const seen = vi.fn();
  const log = { line: (text: string) => text };
  const spy = vi.spyOn(log, 'line');
  forEachClamped([15, -1], 0, 10, seen, log);
  expect(spy).toHaveBeenCalledTimes(2);
  expect(seen).toHaveBeenCalledWith(10);
  expect(seen).not.toHaveBeenCalledWith(15);
});
`;
    const jestTest = vitestTest
      .replace("import { expect, it, vi } from 'vitest';\n", '')
      .replaceAll('vi.', 'jest.')
      .replace(': string', '');
    const dir = mkdtempSync(join(tmpdir(), 'swesynth-mock-repro-'));
    try {
      const runWith = (script: { code: string }, body: string) => {
        mkdirSync(join(dir, 'node_modules', 'clamp-lib'), { recursive: true });
        writeFileSync(join(dir, 'node_modules', 'clamp-lib', 'package.json'), '{"name":"clamp-lib","main":"index.js"}');
        writeFileSync(join(dir, 'node_modules', 'clamp-lib', 'index.js'), `exports.forEachClamped = ${body};`);
        writeFileSync(join(dir, 'repro.mjs'), script.code);
        const run = spawnSync(process.execPath, ['repro.mjs'], { cwd: dir, encoding: 'utf8' });
        return run.status === 0 ? 'passes' : /AssertionError/.test(run.stderr) ? 'fails' : run.stderr;
      };
      const fixed =
        '(values, low, high, each, log) => values.forEach((v) => { log.line(String(v)); each(Math.min(high, Math.max(low, v))); })';
      const buggy = fixed.replace('Math.min(high, ', '(');
      for (const [runner, text, file] of [
        ['vitest', vitestTest, 'test/clamp.test.ts'],
        ['jest', jestTest, 'test/clamp.test.js'],
      ] as const) {
        const script = scriptFor(runner, text, text.split('\n').findIndex((line) => line.includes('not.toHaveBeenCalledWith')) + 1, file);
        expect(script, runner).toMatchObject({ code: expect.stringContaining('const seen = mockFunction();') });
        if (!('code' in script)) continue;
        expect(script.code).toContain("const spy = spyOnMethod(log, 'line');");
        expect(script.code).toContain('assert.ok(!seen.mock.calledWith(15));');
        expect(script.code).not.toMatch(/\b(vi|jest)\./);
        expect(runWith(script, fixed), runner).toBe('passes');
        expect(runWith(script, buggy), runner).toBe('fails');
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
