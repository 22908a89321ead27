import { describe, expect, it } from 'vitest';
import { removedStatement } from '../../mutators/operators/removed-statement.js';
import { mutate } from './helpers.js';

describe('removed-statement', () => {
  it('deletes a statement standing on its own line, line and all', () => {
    const code = 'function f(list) {\n  const out = [];\n  out.push(1);\n  return out;\n}\n';
    expect(mutate(removedStatement, code)).toEqual(['function f(list) {\n  const out = [];\n  return out;\n}\n']);
  });

  it('never removes the only body of an unbraced if', () => {
    expect(mutate(removedStatement, 'function f(a) { if (a) a.count++; return a; }')).toEqual([]);
  });

  it('deletes just the statement when it shares its line', () => {
    expect(mutate(removedStatement, 'function f(a) { a.x = 1; a.y = 2; }')).toEqual(['function f(a) {  a.y = 2; }', 'function f(a) { a.x = 1;  }']);
  });
});
