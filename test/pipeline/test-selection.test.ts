import { describe, expect, it } from 'vitest';
import type { CoverageMap } from '../../pipeline/store/records.js';
import { coveringTestFiles, runtimeName, screenSteps, selectTests } from '../../pipeline/validation/test-selection.js';

const TIMEOUTS = { factor: 2, minimumMs: 1000, wholeSuiteMs: 60_000 };

const coverage: CoverageMap = {
  bundled: {},
  learnedMs: 0,
  known: {
    'src/parse.ts': ['parse', 'tokenize', 'unused'],
    'build/lib/format.js': ['format', 'Formatter', 'pad'],
    'dist/bundle.js': ['a', 'b'],
    'lib/units.js': ['convert'],
    'packages/a/lib/clamp.js': ['clamp'],
  },
  testFiles: [
    { file: 'test/parse.test.ts', durationMs: 900, measured: true, executed: { 'src/parse.ts': { parse: 4, tokenize: 9 } } },
    {
      file: 'test/everything.test.ts',
      durationMs: 300,
      measured: true,
      executed: { 'src/parse.ts': { parse: 40 }, 'build/lib/format.js': { format: 2, Formatter: 1 } },
    },
    {
      file: 'test/format.test.ts',
      durationMs: 500,
      measured: true,
      executed: { 'build/lib/format.js': { format: 7, Formatter: 7, pad: 1 } },
    },
    { file: 'test/bundle.test.ts', durationMs: 100, measured: true, executed: { 'dist/bundle.js': { a: 1 } } },
    { file: 'test/units.test.js', durationMs: 100, measured: true, executed: { 'lib/units.js': { convert: 3 } } },
    { file: 'packages/a/test/clamp.js', durationMs: 100, measured: true, executed: { 'packages/a/lib/clamp.js': { clamp: 2 } } },
  ],
};

describe('test selection', () => {
  it('names units the way V8 names their functions', () => {
    expect(runtimeName('Parser.parse')).toBe('parse');
    expect(runtimeName('Formatter.constructor')).toBe('Formatter');
    expect(runtimeName('tokenize')).toBe('tokenize');
  });

  it('picks the test files that executed the function, in the source or in its built output', () => {
    expect(coveringTestFiles(coverage, [{ file: 'src/parse.ts', unit: 'tokenize' }])).toEqual(['test/parse.test.ts']);
    expect(coveringTestFiles(coverage, [{ file: 'lib/format.ts', unit: 'Formatter.constructor' }]).sort()).toEqual([
      'test/everything.test.ts',
      'test/format.test.ts',
    ]);
    expect(coveringTestFiles(coverage, [{ file: 'lib/format.ts', unit: 'Formatter.pad' }])).toEqual(['test/format.test.ts']);
    // A build that writes src/ to another folder: lib/units.js is src/units.js built.
    expect(coveringTestFiles(coverage, [{ file: 'src/units.js', unit: 'convert' }])).toEqual(['test/units.test.js']);
    expect(coveringTestFiles(coverage, [{ file: 'src/format.ts', unit: 'format' }])).toEqual([]);
    // The same inside a workspace package: packages/a/lib/clamp.js is packages/a/src/clamp.js built.
    expect(coveringTestFiles(coverage, [{ file: 'packages/a/src/clamp.js', unit: 'clamp' }])).toEqual(['packages/a/test/clamp.js']);
    expect(coveringTestFiles(coverage, [{ file: 'packages/b/src/clamp.js', unit: 'clamp' }])).toEqual([]);
  });

  it('selects nothing for a function that V8 saw and no test ran, or a file no test loaded', () => {
    expect(coveringTestFiles(coverage, [{ file: 'src/parse.ts', unit: 'unused' }])).toEqual([]);
    expect(coveringTestFiles(coverage, [{ file: 'src/other.ts', unit: 'parse' }])).toEqual([]);
  });

  it('falls back to every test file that loaded the file when V8 knows no function of that name', () => {
    expect(coveringTestFiles(coverage, [{ file: 'src/parse.ts', unit: 'renamedByTheBuild' }]).sort()).toEqual([
      'test/everything.test.ts',
      'test/parse.test.ts',
    ]);
  });

  it('always includes test files whose coverage could not be measured', () => {
    const unmeasured = {
      ...coverage,
      testFiles: [...coverage.testFiles, { file: 'test/opaque.test.ts', durationMs: 50, measured: false, executed: {} }],
    };
    expect(coveringTestFiles(unmeasured, [{ file: 'src/parse.ts', unit: 'unused' }])).toEqual(['test/opaque.test.ts']);
  });

  it('treats functions named like Object methods as names', () => {
    const objectNames: CoverageMap = {
      bundled: {},
      learnedMs: 0,
      known: { 'src/range.js': ['toString', 'constructor', 'valueOf'] },
      testFiles: [{ file: 'test/range.test.js', durationMs: 10, measured: true, executed: { 'src/range.js': { toString: 3 } } }],
    };
    expect(coveringTestFiles(objectNames, [{ file: 'src/range.js', unit: 'Range.toString' }])).toEqual(['test/range.test.js']);
    expect(coveringTestFiles(objectNames, [{ file: 'src/range.js', unit: 'Range.valueOf' }])).toEqual([]);
    expect(selectTests(objectNames, [{ file: 'src/range.js', unit: 'Range.toString' }], TIMEOUTS).files).toEqual(['test/range.test.js']);
  });

  it('takes the union over the sites of a candidate', () => {
    expect(
      coveringTestFiles(coverage, [
        { file: 'src/parse.ts', unit: 'tokenize' },
        { file: 'lib/format.ts', unit: 'pad' },
      ]).sort(),
    ).toEqual(['test/format.test.ts', 'test/parse.test.ts']);
  });

  it('orders the test file named after the changed file first, then by calls, and scales the timeout with their time', () => {
    expect(selectTests(coverage, [{ file: 'src/parse.ts', unit: 'parse' }], TIMEOUTS)).toEqual({
      files: ['test/parse.test.ts', 'test/everything.test.ts'],
      timeoutMs: 2 * 1200 + 1000,
    });
    expect(selectTests(coverage, [{ file: 'lib/format.ts', unit: 'format' }], { ...TIMEOUTS, wholeSuiteMs: 2000 }).timeoutMs).toBe(2000);
  });

  it('screens the most likely file alone, then twice as many files per step, each with the time limit of the whole selection', () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((name) => `test/${name}.test.ts`);
    const steps = screenSteps({ files, timeoutMs: 9000 });
    expect(steps.map((step) => step.files)).toEqual([files.slice(0, 1), files.slice(1, 3), files.slice(3, 7), files.slice(7)]);
    expect(steps.every((step) => step.timeoutMs === 9000)).toBe(true);
    expect(screenSteps({ files: [], timeoutMs: 9000 })).toEqual([]);
  });
});
