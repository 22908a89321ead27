import { describe, expect, it } from 'vitest';
import { updateSwap } from '../../mutators/operators/update-swap.js';
import { mutate } from './helpers.js';

describe('update-swap', () => {
  it('turns ++ into -- and, where the value is used, postfix into prefix', () => {
    expect(mutate(updateSwap, 'function f(a, i) { a[i++] = 0; return --i; }')).toEqual([
      'function f(a, i) { a[i--] = 0; return --i; }',
      'function f(a, i) { a[++i] = 0; return --i; }',
      'function f(a, i) { a[i++] = 0; return ++i; }',
      'function f(a, i) { a[i++] = 0; return i--; }',
    ]);
  });

  it('only swaps the operator where the value is thrown away', () => {
    expect(mutate(updateSwap, 'function f(i, j) { i++; for (; i < j; i++, j--) {} }')).toEqual([
      'function f(i, j) { i--; for (; i < j; i++, j--) {} }',
      'function f(i, j) { i++; for (; i < j; i--, j--) {} }',
      'function f(i, j) { i++; for (; i < j; i++, j++) {} }',
    ]);
  });

  it('keeps a neighbouring + from joining the new operator', () => {
    expect(mutate(updateSwap, 'function f(a, i) { return a+i++ - a+--i; }')).toEqual([
      'function f(a, i) { return a+i-- - a+--i; }',
      'function f(a, i) { return a+ ++i - a+--i; }',
      'function f(a, i) { return a+i++ - a+ ++i; }',
      'function f(a, i) { return a+i++ - a+i--; }',
    ]);
  });

  it('works on TypeScript', () => {
    expect(mutate(updateSwap, 'function f(c: { n: number }) { return c.n!++; }', 'src/example.ts')).toEqual([
      'function f(c: { n: number }) { return c.n!--; }',
      'function f(c: { n: number }) { return ++c.n!; }',
    ]);
  });
});
