import { describe, expect, it } from 'vitest';
import { shuffledStatements } from '../../mutators/operators/shuffled-statements.js';
import { mutate } from './helpers.js';

describe('shuffled-statements', () => {
  it('swaps adjacent statements that depend on each other, keeping the text between them', () => {
    const code = 'function f(a) {\n  a.total = 0;\n  a.total += a.x;\n  a.x = 0;\n}\n';
    expect(mutate(shuffledStatements, code)).toEqual([
      'function f(a) {\n  a.total += a.x;\n  a.total = 0;\n  a.x = 0;\n}\n',
      'function f(a) {\n  a.total = 0;\n  a.x = 0;\n  a.total += a.x;\n}\n',
    ]);
  });

  it('swaps statements with calls, whose effects are unknown', () => {
    expect(mutate(shuffledStatements, 'function f(a) { a.open(); a.write(1); }')).toEqual(['function f(a) { a.write(1); a.open(); }']);
  });

  it('skips statements that touch different places, since their order cannot matter', () => {
    expect(mutate(shuffledStatements, 'function f(a, b) { this.a = a; this.b = b; this.c = this.b; this.c.d = 1; n++; m = 2; }')).toEqual([
      'function f(a, b) { this.a = a; this.c = this.b; this.b = b; this.c.d = 1; n++; m = 2; }',
      'function f(a, b) { this.a = a; this.b = b; this.c.d = 1; this.c = this.b; n++; m = 2; }',
    ]);
  });

  it('tells private fields apart', () => {
    expect(mutate(shuffledStatements, 'class A { #a; #b; m(a) { this.#a = a; this.#b = a; this.c = this.#b; } }')).toEqual([
      'class A { #a; #b; m(a) { this.#a = a; this.c = this.#b; this.#b = a; } }',
    ]);
  });

  it('takes a write to an element as a write to the whole array', () => {
    expect(mutate(shuffledStatements, 'function f(xs, i) { xs[i] = 1; total = sum(xs); }')).toEqual([
      'function f(xs, i) { total = sum(xs); xs[i] = 1; }',
    ]);
    expect(mutate(shuffledStatements, 'function f(xs, i) { xs[i] = 1; n = xs.length; }')).toEqual([
      'function f(xs, i) { n = xs.length; xs[i] = 1; }',
    ]);
  });

  it('never moves declarations or exits, nor swaps identical statements', () => {
    expect(
      mutate(shuffledStatements, 'function f(a) { const b = g(a); g(b); function h() {} g(a); if (a) return; g(a); g(a); return b; }'),
    ).toEqual([
      'function f(a) { const b = g(a); g(b); function h() {} if (a) return; g(a); g(a); g(a); return b; }',
      'function f(a) { const b = g(a); g(b); function h() {} g(a); g(a); if (a) return; g(a); return b; }',
    ]);
  });

  it('works in TypeScript', () => {
    expect(mutate(shuffledStatements, 'function f(s: { n: number }): void { s.n = 1; log(s.n as number); }', 'src/example.ts')).toEqual([
      'function f(s: { n: number }): void { log(s.n as number); s.n = 1; }',
    ]);
  });
});
