import { describe, expect, it } from 'vitest';
import { changedReturnValue } from '../../mutators/operators/changed-return-value.js';
import { mutate } from './helpers.js';

describe('changed-return-value', () => {
  it('flips returned booleans', () => {
    expect(mutate(changedReturnValue, 'function f(a) { if (a) return true; return false; }')).toEqual([
      'function f(a) { if (a) return false; return false; }',
      'function f(a) { if (a) return true; return true; }',
    ]);
  });

  it('turns returned numbers into 0', () => {
    expect(mutate(changedReturnValue, 'function f(a) { if (a) return 42; if (a.b) return -2.5; return a.c; }')).toEqual([
      'function f(a) { if (a) return 0; if (a.b) return -2.5; return a.c; }',
      'function f(a) { if (a) return 42; if (a.b) return 0; return a.c; }',
    ]);
  });

  it('leaves 0 and ±1 to off-by-one-constant, which moves them to 1 and 0', () => {
    expect(mutate(changedReturnValue, 'function f(a) { if (a) return 0; if (a.b) return 1; return -1; }')).toEqual([]);
  });

  it('empties returned strings, arrays and objects, keeping the quotes', () => {
    expect(mutate(changedReturnValue, 'function f(a) { if (a) return "on"; if (a.b) return [1, 2]; return { a }; }')).toEqual([
      'function f(a) { if (a) return ""; if (a.b) return [1, 2]; return { a }; }',
      'function f(a) { if (a) return "on"; if (a.b) return []; return { a }; }',
      'function f(a) { if (a) return "on"; if (a.b) return [1, 2]; return {}; }',
    ]);
  });

  it('changes literals that concise arrow bodies return', () => {
    expect(mutate(changedReturnValue, "const f = (xs) => xs.filter(() => true).concat(() => ({ a: 1 }), () => 'x');")).toEqual([
      "const f = (xs) => xs.filter(() => false).concat(() => ({ a: 1 }), () => 'x');",
      "const f = (xs) => xs.filter(() => true).concat(() => ({}), () => 'x');",
      "const f = (xs) => xs.filter(() => true).concat(() => ({ a: 1 }), () => '');",
    ]);
  });

  it('skips empty values, null, undefined and returns that are not literals', () => {
    expect(
      mutate(
        changedReturnValue,
        "function f(a) { if (a) return ''; if (a.b) return []; if (a.c) return {}; if (a.d) return null; if (a.e) return undefined; if (a.f) return; return a; }",
      ),
    ).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(changedReturnValue, 'const f = (a: number): boolean => a > 0 || false; function g(): number { return 3; }', 'src/example.ts'),
    ).toEqual(['const f = (a: number): boolean => a > 0 || false; function g(): number { return 0; }']);
  });
});
