import { describe, expect, it } from 'vitest';
import { removedEarlyReturn } from '../../mutators/operators/removed-early-return.js';
import { mutate } from './helpers.js';

describe('removed-early-return', () => {
  it('removes guard clauses that return or throw, line and all', () => {
    const code =
      'function f(a) {\n  if (!a) return null;\n  if (a.broken) {\n    log(a);\n    throw new Error("broken");\n  }\n  return a.value;\n}\n';
    expect(mutate(removedEarlyReturn, code)).toEqual([
      'function f(a) {\n  if (a.broken) {\n    log(a);\n    throw new Error("broken");\n  }\n  return a.value;\n}\n',
      'function f(a) {\n  if (!a) return null;\n  return a.value;\n}\n',
    ]);
  });

  it('skips a guard that is the last statement of its block', () => {
    expect(mutate(removedEarlyReturn, 'function f(a) { g(a); if (a) return; }')).toEqual([]);
  });

  it('skips ifs with an else, bodies that do not return or throw, and loop exits', () => {
    const code = 'function f(xs) { for (const x of xs) { if (x) continue; g(x); } if (xs.a) return 1; else g(); if (xs.b) g(); return 0; }';
    expect(mutate(removedEarlyReturn, code)).toEqual([]);
  });

  it('skips a guard that is the body of another statement', () => {
    expect(mutate(removedEarlyReturn, 'function f(xs) { for (const x of xs) if (!x) return; return 0; }')).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(removedEarlyReturn, 'function f(a?: string): number { if (a === undefined) return 0; return a.length; }', 'src/example.ts'),
    ).toEqual(['function f(a?: string): number {  return a.length; }']);
  });
});
