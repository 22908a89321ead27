import { describe, expect, it } from 'vitest';
import { nullishSwap } from '../../mutators/operators/nullish-swap.js';
import { mutate } from './helpers.js';

describe('nullish-swap', () => {
  it('swaps ?? and || (and their assignments) but leaves && alone', () => {
    expect(mutate(nullishSwap, 'function f(a, b) { a.x ??= 1; a.y ||= 2; return (a && b) || (a.z ?? 0); }')).toEqual([
      'function f(a, b) { a.x ||= 1; a.y ||= 2; return (a && b) || (a.z ?? 0); }',
      'function f(a, b) { a.x ??= 1; a.y ??= 2; return (a && b) || (a.z ?? 0); }',
      'function f(a, b) { a.x ??= 1; a.y ||= 2; return (a && b) ?? (a.z ?? 0); }',
      'function f(a, b) { a.x ??= 1; a.y ||= 2; return (a && b) || (a.z || 0); }',
    ]);
  });

  it('adds the parentheses that keep ?? from mixing with || and &&', () => {
    expect(mutate(nullishSwap, 'function f(a, b, c) { return a || b || c; }')).toEqual([
      'function f(a, b, c) { return (a || b) ?? c; }',
      'function f(a, b, c) { return (a ?? b) || c; }',
    ]);
    expect(mutate(nullishSwap, 'function f(a, b, c) { return a ?? b ?? c; }')).toEqual([
      'function f(a, b, c) { return (a ?? b) || c; }',
      'function f(a, b, c) { return (a || b) ?? c; }',
    ]);
    expect(mutate(nullishSwap, 'function f(a, b, c) { return a && b || c; }')).toEqual(['function f(a, b, c) { return (a && b) ?? c; }']);
  });

  it('skips left sides on which ?? and || decide alike', () => {
    expect(
      mutate(nullishSwap, "function f(a) { return [null ?? a, undefined || a, {} || a, 'x' ?? a, new Map() || a, typeof a || 'none']; }"),
    ).toEqual([]);
  });

  it('keeps the falsy literals, where the two differ', () => {
    expect(mutate(nullishSwap, 'function f(a) { return 0 || a; }')).toEqual(['function f(a) { return 0 ?? a; }']);
  });

  it('works on TypeScript', () => {
    expect(mutate(nullishSwap, 'function f(a?: number): number { return (a as number) || 1; }', 'src/example.ts')).toEqual([
      'function f(a?: number): number { return (a as number) ?? 1; }',
    ]);
  });
});
