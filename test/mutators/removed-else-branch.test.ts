import { describe, expect, it } from 'vitest';
import { removedElseBranch } from '../../mutators/operators/removed-else-branch.js';
import { mutate } from './helpers.js';

describe('removed-else-branch', () => {
  it('removes the else, lines and all', () => {
    const code = 'function f(a) {\n  let sign;\n  if (a > 0) {\n    sign = 1;\n  } else {\n    sign = -1;\n  }\n  return sign;\n}\n';
    expect(mutate(removedElseBranch, code)).toEqual([
      'function f(a) {\n  let sign;\n  if (a > 0) {\n    sign = 1;\n  }\n  return sign;\n}\n',
    ]);
  });

  it('makes one mutant per else of an else-if chain, each dropping the rest of the chain', () => {
    expect(mutate(removedElseBranch, 'function f(a) { if (a === 1) g(); else if (a === 2) h(); else k(); }')).toEqual([
      'function f(a) { if (a === 1) g(); }',
      'function f(a) { if (a === 1) g(); else if (a === 2) h(); }',
    ]);
  });

  it('skips empty elses', () => {
    expect(mutate(removedElseBranch, 'function f(a) { if (a) g(); else {} if (a) h(); else ; }')).toEqual([]);
  });

  it('does not hand an outer else to an inner if', () => {
    expect(mutate(removedElseBranch, 'function f(a, b) { if (a) if (b) g(); else h(); else k(); }')).toEqual([
      'function f(a, b) { if (a) if (b) g(); else h(); }',
    ]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(removedElseBranch, 'function f(a: number | null): number { if (a !== null) return a!; else return -1; }', 'src/example.ts'),
    ).toEqual(['function f(a: number | null): number { if (a !== null) return a!; }']);
  });
});
