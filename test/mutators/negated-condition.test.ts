import { describe, expect, it } from 'vitest';
import { negatedCondition } from '../../mutators/operators/negated-condition.js';
import { mutate } from './helpers.js';

describe('negated-condition', () => {
  it('negates if, ternary and loop conditions', () => {
    expect(mutate(negatedCondition, 'function f(a, b) { if (a < b) return a; while (ok) b--; return a > 0 ? a : b; }')).toEqual([
      'function f(a, b) { if (!(a < b)) return a; while (ok) b--; return a > 0 ? a : b; }',
      'function f(a, b) { if (a < b) return a; while (!ok) b--; return a > 0 ? a : b; }',
      'function f(a, b) { if (a < b) return a; while (ok) b--; return !(a > 0) ? a : b; }',
    ]);
  });

  it('removes an existing negation instead of doubling it', () => {
    expect(mutate(negatedCondition, 'function f(a) { if (!a.ready) return 1; if (!(a.x && a.y)) return 2; }')).toEqual([
      'function f(a) { if (a.ready) return 1; if (!(a.x && a.y)) return 2; }',
      'function f(a) { if (!a.ready) return 1; if ((a.x && a.y)) return 2; }',
    ]);
  });
});
