import { describe, expect, it } from 'vitest';
import { removedLoop } from '../../mutators/operators/removed-loop.js';
import { mutate } from './helpers.js';

describe('removed-loop', () => {
  it('removes each kind of loop, lines and all', () => {
    const code = [
      'function f(xs, o) {',
      '  let n = 0;',
      '  for (let i = 0; i < xs.length; i++) n += xs[i];',
      '  for (const k in o) n++;',
      '  for (const x of xs) {',
      '    n -= x;',
      '  }',
      '  while (n > 10) n /= 2;',
      '  do n++; while (n < 0);',
      '  return n;',
      '}',
    ].join('\n');
    const without = (line: number) =>
      code
        .split('\n')
        .filter((_, i) => i !== line)
        .join('\n');
    expect(mutate(removedLoop, code)).toEqual([
      without(2),
      without(3),
      code.replace('  for (const x of xs) {\n    n -= x;\n  }\n', ''),
      without(7),
      without(8),
    ]);
  });

  it('skips loops that are the body of another statement', () => {
    expect(mutate(removedLoop, 'function f(a, xs) { if (a) for (const x of xs) g(x); outer: while (a) a = g(a); return a; }')).toEqual([]);
  });

  it('removes the outer loop rather than a loop that is its whole body', () => {
    expect(mutate(removedLoop, 'function f(m) { for (const row of m) { for (const x of row) g(x); } h(); }')).toEqual([
      'function f(m) {  h(); }',
    ]);
  });

  it('leaves a loop that is the whole body of an if without else to removed-if-block', () => {
    expect(mutate(removedLoop, 'function f(a, xs) { if (a) { for (const x of xs) g(x); } h(); }')).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(
        removedLoop,
        'function f(xs: number[]): number { let n = 0; for (const x of xs as number[]) n += x; return n; }',
        'src/example.ts',
      ),
    ).toEqual(['function f(xs: number[]): number { let n = 0;  return n; }']);
  });
});
