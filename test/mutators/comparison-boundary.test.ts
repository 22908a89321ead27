import { describe, expect, it } from 'vitest';
import { comparisonBoundary } from '../../mutators/operators/comparison-boundary.js';
import { mutate } from './helpers.js';

describe('comparison-boundary', () => {
  it('moves each boundary by one', () => {
    expect(mutate(comparisonBoundary, 'function f(a, b) { return a < b || a >= b; }')).toEqual([
      'function f(a, b) { return a <= b || a >= b; }',
      'function f(a, b) { return a < b || a > b; }',
    ]);
  });

  it('finds the operator past parentheses and comments', () => {
    expect(mutate(comparisonBoundary, 'const f = (a, b) => (a) /* < */ > (b);')).toEqual(['const f = (a, b) => (a) /* < */ >= (b);']);
  });

  it('leaves code outside functions alone', () => {
    expect(mutate(comparisonBoundary, 'const limit = 1 < 2;')).toEqual([]);
  });
});
