import { describe, expect, it } from 'vitest';
import { arithmeticSwap } from '../../mutators/operators/arithmetic-swap.js';
import { mutate } from './helpers.js';

describe('arithmetic-swap', () => {
  it('swaps each binary operator, outer expressions first', () => {
    expect(mutate(arithmeticSwap, 'function f(a, b) { return (a * b - 1) / (a % b); }')).toEqual([
      'function f(a, b) { return (a * b - 1) * (a % b); }',
      'function f(a, b) { return (a * b + 1) / (a % b); }',
      'function f(a, b) { return (a / b - 1) / (a % b); }',
      'function f(a, b) { return (a * b - 1) / (a * b); }',
    ]);
  });

  it('leaves compound assignments and increments to update-swap and compound-assignment-swap', () => {
    expect(mutate(arithmeticSwap, 'function f(a) { a.t += 1; a.t *= 2; a.n++; --a.m; }')).toEqual([]);
  });

  it('does not turn string concatenation into subtraction', () => {
    expect(mutate(arithmeticSwap, "function f(name) { return 'hello ' + name; }")).toEqual([]);
  });

  it('keeps a subtraction of a negative number valid', () => {
    expect(mutate(arithmeticSwap, 'function f(a, b) { return a - -b; }')).toEqual(['function f(a, b) { return a + -b; }']);
  });
});
