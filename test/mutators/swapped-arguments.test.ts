import { describe, expect, it } from 'vitest';
import { swappedArguments } from '../../mutators/operators/swapped-arguments.js';
import { mutate } from './helpers.js';

describe('swapped-arguments', () => {
  it('swaps each neighbouring pair of a call or new', () => {
    expect(mutate(swappedArguments, 'function f(a, b, c) { g(a, b, c); return new Range(a, b); }')).toEqual([
      'function f(a, b, c) { g(b, a, c); return new Range(a, b); }',
      'function f(a, b, c) { g(a, c, b); return new Range(a, b); }',
      'function f(a, b, c) { g(a, b, c); return new Range(b, a); }',
    ]);
  });

  it('moves parenthesized arguments with their parentheses and keeps the layout', () => {
    expect(mutate(swappedArguments, 'function f(a, b) {\n  g(\n    (a, b),\n    a,\n  );\n}')).toEqual([
      'function f(a, b) {\n  g(\n    a,\n    (a, b),\n  );\n}',
    ]);
  });

  it('skips spreads, equal arguments and symmetric functions', () => {
    expect(
      mutate(swappedArguments, 'function f(a, b) { g(...a, b); h(1, 1.0); k(a, a); return Math.max(a, b) + Math.min(a, b); }'),
    ).toEqual([]);
  });

  it('swaps the arguments of a method whose receiver is named like an object built-in', () => {
    expect(mutate(swappedArguments, 'function f(a, b) { return constructor.call(a, b); }')).toEqual([
      'function f(a, b) { return constructor.call(b, a); }',
    ]);
  });

  it('works on TypeScript', () => {
    expect(
      mutate(swappedArguments, 'function f(a: number, b: number) { return clamp<number>(a as number, b); }', 'src/example.ts'),
    ).toEqual(['function f(a: number, b: number) { return clamp<number>(b, a as number); }']);
  });
});
