import { describe, expect, it } from 'vitest';
import { swappedMethodPair } from '../../mutators/operators/swapped-method-pair.js';
import { mutate } from './helpers.js';

describe('swapped-method-pair', () => {
  it('calls the twin method, optional calls included', () => {
    expect(
      mutate(swappedMethodPair, "function f(s, list) { return s.startsWith('x') && list?.every(Boolean) && Object.keys(s); }"),
    ).toEqual([
      "function f(s, list) { return s.endsWith('x') && list?.every(Boolean) && Object.keys(s); }",
      "function f(s, list) { return s.startsWith('x') && list?.some(Boolean) && Object.keys(s); }",
      "function f(s, list) { return s.startsWith('x') && list?.every(Boolean) && Object.values(s); }",
    ]);
  });

  it('swaps min/max and floor/ceil only on Math, and min/max only given two values', () => {
    expect(
      mutate(
        swappedMethodPair,
        'function f(a, b) { return Math.max(a, b) + Math.min(...a) + Math.ceil(a) + Math.max(a) + stats.min(a, b); }',
      ),
    ).toEqual([
      'function f(a, b) { return Math.min(a, b) + Math.min(...a) + Math.ceil(a) + Math.max(a) + stats.min(a, b); }',
      'function f(a, b) { return Math.max(a, b) + Math.max(...a) + Math.ceil(a) + Math.max(a) + stats.min(a, b); }',
      'function f(a, b) { return Math.max(a, b) + Math.min(...a) + Math.floor(a) + Math.max(a) + stats.min(a, b); }',
    ]);
  });

  it('skips computed names and plain function calls', () => {
    expect(mutate(swappedMethodPair, "function f(a) { return a['push'](1) + pop() + a.toString(); }")).toEqual([]);
  });

  it('works on TypeScript generics', () => {
    expect(mutate(swappedMethodPair, 'function f(a: number[]) { return a.reduce<number>((s, x) => s + x, 0); }', 'src/example.ts')).toEqual(
      ['function f(a: number[]) { return a.reduceRight<number>((s, x) => s + x, 0); }'],
    );
  });
});
