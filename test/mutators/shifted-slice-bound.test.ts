import { describe, expect, it } from 'vitest';
import { shiftedSliceBound } from '../../mutators/operators/shifted-slice-bound.js';
import { mutate } from './helpers.js';

describe('shifted-slice-bound', () => {
  it('moves the start up and the end down by one', () => {
    expect(mutate(shiftedSliceBound, 'function f(s, i) { return s.slice(i, s.length); }')).toEqual([
      'function f(s, i) { return s.slice(i + 1, s.length); }',
      'function f(s, i) { return s.slice(i, s.length - 1); }',
    ]);
  });

  it('computes literal bounds and parenthesizes compound ones', () => {
    expect(mutate(shiftedSliceBound, 'function f(a, i) { return a.splice(i * 2, 1); }')).toEqual([
      'function f(a, i) { return a.splice((i * 2) + 1, 1); }',
      'function f(a, i) { return a.splice(i * 2, 0); }',
    ]);
  });

  it('never changes the sign of a literal bound', () => {
    expect(mutate(shiftedSliceBound, 'function f(s) { return s.slice(-1) + s.substr(0, 0); }')).toEqual([
      'function f(s) { return s.slice(-2) + s.substr(0, 0); }',
      'function f(s) { return s.slice(-1) + s.substr(1, 0); }',
      'function f(s) { return s.slice(-1) + s.substr(0, 1); }',
    ]);
  });

  it('skips bounds where a shift changes nothing, spreads and other methods', () => {
    expect(
      mutate(
        shiftedSliceBound,
        'function f(s, r) { return [s.substring(-1), s.slice(undefined, Infinity), s.slice(...r), s.slice(), s.split(1)]; }',
      ),
    ).toEqual([]);
  });

  it('works on TypeScript', () => {
    expect(mutate(shiftedSliceBound, 'function f(s: string, n: number) { return s?.substring(n!); }', 'src/example.ts')).toEqual([
      'function f(s: string, n: number) { return s?.substring((n!) + 1); }',
    ]);
  });
});
