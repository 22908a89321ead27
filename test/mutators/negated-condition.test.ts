import { describe, expect, it } from 'vitest';
import { negatedCondition } from '../../mutators/operators/negated-condition.js';
import { mutate } from './helpers.js';

describe('negated-condition', () => {
  it('negates the conditions of ifs without else and of loops', () => {
    expect(
      mutate(negatedCondition, 'function f(a, b) { if (a < b) return a; while (ok) b--; do a++; while (a < 0); for (; b; ) b = g(b); }'),
    ).toEqual([
      'function f(a, b) { if (!(a < b)) return a; while (ok) b--; do a++; while (a < 0); for (; b; ) b = g(b); }',
      'function f(a, b) { if (a < b) return a; while (!ok) b--; do a++; while (a < 0); for (; b; ) b = g(b); }',
      'function f(a, b) { if (a < b) return a; while (ok) b--; do a++; while (!(a < 0)); for (; b; ) b = g(b); }',
      'function f(a, b) { if (a < b) return a; while (ok) b--; do a++; while (a < 0); for (; !b; ) b = g(b); }',
    ]);
  });

  it('removes an existing negation instead of doubling it', () => {
    expect(mutate(negatedCondition, 'function f(a) { if (!a.ready) return 1; if (!(a.x && a.y)) return 2; }')).toEqual([
      'function f(a) { if (a.ready) return 1; if (!(a.x && a.y)) return 2; }',
      'function f(a) { if (!a.ready) return 1; if ((a.x && a.y)) return 2; }',
    ]);
  });

  it('leaves ternaries to swapped-ternary and ifs with an else to swapped-if-else', () => {
    expect(mutate(negatedCondition, 'function f(a) { if (a) g(); else h(); if (a.b) { g(); } else { h(); } return a ? 1 : 2; }')).toEqual(
      [],
    );
  });

  it('negates the head of an else-if chain, whose branches swapped-if-else cannot swap', () => {
    expect(mutate(negatedCondition, 'function f(a) { if (a.x) g(); else if (a.y) h(); else k(); }')).toEqual([
      'function f(a) { if (!a.x) g(); else if (a.y) h(); else k(); }',
    ]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(negatedCondition, 'function f(a: string | null): number { if (a as string) return 1; return 0; }', 'src/example.ts'),
    ).toEqual(['function f(a: string | null): number { if (!(a as string)) return 1; return 0; }']);
  });
});
