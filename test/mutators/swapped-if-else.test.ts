import { describe, expect, it } from 'vitest';
import { swappedIfElse } from '../../mutators/operators/swapped-if-else.js';
import { mutate } from './helpers.js';

describe('swapped-if-else', () => {
  it('swaps the two branches and keeps the text between them', () => {
    const code = 'function f(a) {\n  if (a > 0) {\n    return 1;\n  } else {\n    return -1;\n  }\n}\n';
    expect(mutate(swappedIfElse, code)).toEqual(['function f(a) {\n  if (a > 0) {\n    return -1;\n  } else {\n    return 1;\n  }\n}\n']);
  });

  it('swaps unbraced branches', () => {
    expect(mutate(swappedIfElse, 'function f(a) { if (a) g(); else h(); }')).toEqual(['function f(a) { if (a) h(); else g(); }']);
  });

  it('leaves else-if chains alone, but swaps the last if of the chain', () => {
    expect(mutate(swappedIfElse, 'function f(a) { if (a === 1) g(); else if (a === 2) h(); else k(); }')).toEqual([
      'function f(a) { if (a === 1) g(); else if (a === 2) k(); else h(); }',
    ]);
  });

  it('does not move an unbraced loop into the then branch, where its inner if would take the else', () => {
    expect(mutate(swappedIfElse, 'function f(a, xs) { if (a) { g(); } else for (const x of xs) if (x) h(x); }')).toEqual([]);
  });

  it('skips an if without else and identical branches', () => {
    expect(mutate(swappedIfElse, 'function f(a) { if (a) g(); if (a) { h(); } else { h(); } }')).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(swappedIfElse, 'function f(a: number): string { if (a) return `${a as number}`; else return "none"; }', 'src/example.ts'),
    ).toEqual(['function f(a: number): string { if (a) return "none"; else return `${a as number}`; }']);
  });
});
