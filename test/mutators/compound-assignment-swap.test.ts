import { describe, expect, it } from 'vitest';
import { compoundAssignmentSwap } from '../../mutators/operators/compound-assignment-swap.js';
import { mutate } from './helpers.js';

describe('compound-assignment-swap', () => {
  it('swaps the operator and drops it', () => {
    expect(mutate(compoundAssignmentSwap, 'function f(a, n) { a.total += n; a.rate /= 2; a.flags |= 4; }')).toEqual([
      'function f(a, n) { a.total -= n; a.rate /= 2; a.flags |= 4; }',
      'function f(a, n) { a.total = n; a.rate /= 2; a.flags |= 4; }',
      'function f(a, n) { a.total += n; a.rate *= 2; a.flags |= 4; }',
      'function f(a, n) { a.total += n; a.rate = 2; a.flags |= 4; }',
      'function f(a, n) { a.total += n; a.rate /= 2; a.flags = 4; }',
    ]);
  });

  it('only drops the operator of a concatenation or an identity step', () => {
    expect(mutate(compoundAssignmentSwap, "function f(s, n) { s += 'x'; n -= 0; n *= 1; }")).toEqual([
      "function f(s, n) { s = 'x'; n -= 0; n *= 1; }",
      "function f(s, n) { s += 'x'; n = 0; n *= 1; }",
      "function f(s, n) { s += 'x'; n -= 0; n = 1; }",
    ]);
  });

  it('leaves logical and plain assignments alone', () => {
    expect(mutate(compoundAssignmentSwap, 'function f(a) { a.x ||= 1; a.y ??= 2; a.z &&= 3; a.w = 4; }')).toEqual([]);
  });

  it('works on TypeScript', () => {
    expect(mutate(compoundAssignmentSwap, 'function f(c: { n: number }) { c.n! -= 1 as number; }', 'src/example.ts')).toEqual([
      'function f(c: { n: number }) { c.n! += 1 as number; }',
      'function f(c: { n: number }) { c.n! = 1 as number; }',
    ]);
  });
});
