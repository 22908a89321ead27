import { describe, expect, it } from 'vitest';
import { removedOptionalChaining } from '../../mutators/operators/removed-optional-chaining.js';
import { mutate } from './helpers.js';

describe('removed-optional-chaining', () => {
  it('removes each ?. of a chain on its own, for members, indexes and calls', () => {
    expect(mutate(removedOptionalChaining, 'function f(a, i) { return a?.b?.[i]?.(); }')).toEqual([
      'function f(a, i) { return a?.b?.[i](); }',
      'function f(a, i) { return a?.b[i]?.(); }',
      'function f(a, i) { return a.b?.[i]?.(); }',
    ]);
  });

  it('finds ?. after a parenthesized receiver and skips receivers that cannot be nullish', () => {
    expect(mutate(removedOptionalChaining, 'function f(a) { return [(a || b)?.c, ({})?.x, [1]?.length, a.b.c]; }')).toEqual([
      'function f(a) { return [(a || b).c, ({})?.x, [1]?.length, a.b.c]; }',
    ]);
  });

  it('works past a TypeScript non-null assertion', () => {
    expect(mutate(removedOptionalChaining, 'function f(a: A) { return a.b!?.c; }', 'src/example.ts')).toEqual([
      'function f(a: A) { return a.b!.c; }',
    ]);
  });
});
