import { describe, expect, it } from 'vitest';
import { offByOneConstant } from '../../mutators/operators/off-by-one-constant.js';
import { mutate } from './helpers.js';

describe('off-by-one-constant', () => {
  it('moves an integer up and down by one, and 0 only up', () => {
    expect(mutate(offByOneConstant, 'function f(a) { return a[0] + a.length - 2; }')).toEqual([
      'function f(a) { return a[1] + a.length - 2; }',
      'function f(a) { return a[0] + a.length - 3; }',
      'function f(a) { return a[0] + a.length - 1; }',
    ]);
  });

  it('writes decimal and keeps a method call on a number valid', () => {
    expect(mutate(offByOneConstant, 'function f() { return 0x10 + 1..toFixed(); }')).toEqual([
      'function f() { return 17 + 1..toFixed(); }',
      'function f() { return 15 + 1..toFixed(); }',
      'function f() { return 0x10 + 2..toFixed(); }',
      'function f() { return 0x10 + 0..toFixed(); }',
    ]);
  });

  it('skips fractions, bigints, huge numbers and object keys', () => {
    expect(mutate(offByOneConstant, 'function f(a) { return [1.5, 10n, 4294967296, { 7: a }]; }')).toEqual([]);
  });

  it('only changes a truth test to or from zero', () => {
    expect(mutate(offByOneConstant, 'function f(a) { while (1) a(); return !2 || (0 ? a : 3); }')).toEqual([
      'function f(a) { while (0) a(); return !2 || (0 ? a : 3); }',
      'function f(a) { while (1) a(); return !2 || (1 ? a : 3); }',
      'function f(a) { while (1) a(); return !2 || (0 ? a : 4); }',
      'function f(a) { while (1) a(); return !2 || (0 ? a : 2); }',
    ]);
  });

  it('leaves TypeScript literal types alone', () => {
    expect(mutate(offByOneConstant, 'function f(a: 0 | 1): 0 | 1 { return a ? 0 : 1; }', 'src/example.ts')).toEqual([
      'function f(a: 0 | 1): 0 | 1 { return a ? 1 : 1; }',
      'function f(a: 0 | 1): 0 | 1 { return a ? 0 : 2; }',
      'function f(a: 0 | 1): 0 | 1 { return a ? 0 : 0; }',
    ]);
  });
});
