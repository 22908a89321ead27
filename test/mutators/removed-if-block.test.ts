import { describe, expect, it } from 'vitest';
import { removedIfBlock } from '../../mutators/operators/removed-if-block.js';
import { mutate } from './helpers.js';

describe('removed-if-block', () => {
  it('removes an if without else, line and all', () => {
    const code =
      'function f(list) {\n  const out = [];\n  if (list.length > 2) {\n    out.push(list[0]);\n    out.push(list[1]);\n  }\n  return out;\n}\n';
    expect(mutate(removedIfBlock, code)).toEqual(['function f(list) {\n  const out = [];\n  return out;\n}\n']);
  });

  it('removes an unbraced if', () => {
    expect(mutate(removedIfBlock, 'function f(a) { if (a.x) a.y = 1; return a; }')).toEqual(['function f(a) {  return a; }']);
  });

  it('leaves guard clauses, loop exits and ifs with an else to other operators', () => {
    const code =
      'function f(xs) { for (const x of xs) { if (x < 0) { g(x); break; } if (x === 0) continue; h(x); } if (!xs) throw new Error(); if (xs.a) g(); else h(); }';
    expect(mutate(removedIfBlock, code)).toEqual([]);
  });

  it('skips empty bodies and ifs that are the body of another statement', () => {
    expect(mutate(removedIfBlock, 'function f(a, b) { if (a) {} if (a) ; while (a) if (b) g(); return a; }')).toEqual([]);
  });

  it('removes the outer if rather than the only statement of its body', () => {
    expect(mutate(removedIfBlock, 'function f(a, b) { if (a) { if (b) g(); } return a; }')).toEqual(['function f(a, b) {  return a; }']);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(
        removedIfBlock,
        'function f(a: { x?: number }): void { if (a.x !== undefined) log(a.x as number); done(); }',
        'src/example.ts',
      ),
    ).toEqual(['function f(a: { x?: number }): void {  done(); }']);
  });
});
