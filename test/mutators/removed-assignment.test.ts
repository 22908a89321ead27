import { describe, expect, it } from 'vitest';
import { removedAssignment } from '../../mutators/operators/removed-assignment.js';
import { mutate } from './helpers.js';

describe('removed-assignment', () => {
  it('removes assignments, compound assignments and increments, lines and all', () => {
    const code = 'function f(a) {\n  a.x = 1;\n  a.total += a.x;\n  a.count++;\n  g(a);\n  return a;\n}\n';
    expect(mutate(removedAssignment, code)).toEqual([
      'function f(a) {\n  a.total += a.x;\n  a.count++;\n  g(a);\n  return a;\n}\n',
      'function f(a) {\n  a.x = 1;\n  a.count++;\n  g(a);\n  return a;\n}\n',
      'function f(a) {\n  a.x = 1;\n  a.total += a.x;\n  g(a);\n  return a;\n}\n',
    ]);
  });

  it('skips assignments that are not statements of a block', () => {
    expect(mutate(removedAssignment, 'function f(a) { if (a) a.n = 1; const b = (a.m = 2); return g(a.k++, b); }')).toEqual([]);
  });

  it('leaves the only statement of a loop, if or else body to the operators that remove those', () => {
    expect(
      mutate(
        removedAssignment,
        'function f(xs) { let n = 0; for (const x of xs) { n += x; } if (n) { n = 1; } if (xs) g(); else { n = 2; } return n; }',
      ),
    ).toEqual([]);
  });

  it('removes the only statement of an if body that has an else', () => {
    expect(mutate(removedAssignment, 'function f(n) { if (n) { n = 1; } else { g(); } return n; }')).toEqual([
      'function f(n) { if (n) {  } else { g(); } return n; }',
    ]);
  });

  it('works in TypeScript', () => {
    expect(mutate(removedAssignment, 'function f(a: { n: number }): void { (a as { n: number }).n = 1; g(a); }', 'src/example.ts')).toEqual(
      ['function f(a: { n: number }): void {  g(a); }'],
    );
  });
});
