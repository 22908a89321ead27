import { describe, expect, it } from 'vitest';
import { swappedTernary } from '../../mutators/operators/swapped-ternary.js';
import { mutate } from './helpers.js';

describe('swapped-ternary', () => {
  it('swaps the branches, nested conditionals included', () => {
    expect(mutate(swappedTernary, 'function f(a, b) { return a ? (a, b) : b ? 1 : 2; }')).toEqual([
      'function f(a, b) { return a ? b ? 1 : 2 : (a, b); }',
      'function f(a, b) { return a ? (a, b) : b ? 2 : 1; }',
    ]);
  });

  it('skips identical branches', () => {
    expect(mutate(swappedTernary, 'function f(a, b) { return a ? b : b; }')).toEqual([]);
  });

  it('works on TypeScript', () => {
    expect(mutate(swappedTernary, 'function f(a: boolean) { return a ? (1 as const) : 2; }', 'src/example.ts')).toEqual([
      'function f(a: boolean) { return a ? 2 : (1 as const); }',
    ]);
  });
});
