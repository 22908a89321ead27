import { describe, expect, it } from 'vitest';
import { arithmeticSwap } from '../../mutators/operators/arithmetic-swap.js';
import { mutate } from './helpers.js';

describe('arithmetic-swap', () => {
  it('swaps binary operators, compound assignments and increments, in source order', () => {
    expect(mutate(arithmeticSwap, 'function f(a, b) { let t = a * b - 1; t += a % b; t++; return t; }')).toEqual([
      'function f(a, b) { let t = a / b - 1; t += a % b; t++; return t; }',
      'function f(a, b) { let t = a * b + 1; t += a % b; t++; return t; }',
      'function f(a, b) { let t = a * b - 1; t -= a % b; t++; return t; }',
      'function f(a, b) { let t = a * b - 1; t += a * b; t++; return t; }',
      'function f(a, b) { let t = a * b - 1; t += a % b; t--; return t; }',
    ]);
  });

  it('does not turn string concatenation into subtraction', () => {
    expect(mutate(arithmeticSwap, "function f(name) { return 'hello ' + name; }")).toEqual([]);
  });

  it('keeps a subtraction of a negative number valid', () => {
    expect(mutate(arithmeticSwap, 'function f(a, b) { return a - -b; }')).toEqual(['function f(a, b) { return a + -b; }']);
  });
});
