import { describe, expect, it } from 'vitest';
import { removedStatement } from '../../mutators/operators/removed-statement.js';
import { mutate } from './helpers.js';

describe('removed-statement', () => {
  it('deletes a statement standing on its own line, line and all', () => {
    const code = 'function f(list) {\n  const out = [];\n  out.push(1);\n  return out;\n}\n';
    expect(mutate(removedStatement, code)).toEqual(['function f(list) {\n  const out = [];\n  return out;\n}\n']);
  });

  it('never removes the only body of an unbraced if', () => {
    expect(mutate(removedStatement, 'function f(a) { if (a) a.reset(); return a; }')).toEqual([]);
  });

  it('deletes just the statement when it shares its line', () => {
    expect(mutate(removedStatement, 'async function f(a) { a.open(); await a.ready; }')).toEqual([
      'async function f(a) {  await a.ready; }',
      'async function f(a) { a.open();  }',
    ]);
  });

  it('leaves assignments and increments to removed-assignment', () => {
    expect(mutate(removedStatement, 'function f(a) { a.x = 1; a.y += 2; a.n++; --a.m; }')).toEqual([]);
  });

  it('leaves the only statement of a loop, catch, if or else body to the operators that remove those', () => {
    expect(
      mutate(
        removedStatement,
        'function f(xs) { for (const x of xs) { g(x); } try { h(); } catch (e) { log(e); } if (xs) { g(xs); } else { h(xs); } }',
      ),
    ).toEqual([
      'function f(xs) { for (const x of xs) { g(x); } try {  } catch (e) { log(e); } if (xs) { g(xs); } else { h(xs); } }',
      'function f(xs) { for (const x of xs) { g(x); } try { h(); } catch (e) { log(e); } if (xs) {  } else { h(xs); } }',
    ]);
  });

  it('works in TypeScript', () => {
    expect(mutate(removedStatement, 'function f(a: Cart): void { a.clear()!; a.save(); }', 'src/example.ts')).toEqual([
      'function f(a: Cart): void {  a.save(); }',
      'function f(a: Cart): void { a.clear()!;  }',
    ]);
  });
});
