import { describe, expect, it } from 'vitest';
import { droppedArgument } from '../../mutators/operators/dropped-argument.js';
import { mutate } from './helpers.js';

describe('dropped-argument', () => {
  it('drops the last argument with its comma', () => {
    expect(mutate(droppedArgument, 'function f(a, b) { g(a, (b)); return new Date(a); }')).toEqual([
      'function f(a, b) { g(a); return new Date(a); }',
      'function f(a, b) { g(a, (b)); return new Date(); }',
    ]);
  });

  it('empties the parentheses of a one-argument call with a trailing comma', () => {
    expect(mutate(droppedArgument, 'function f(a) {\n  g(\n    a,\n  );\n}')).toEqual(['function f(a) {\n  g();\n}']);
  });

  it('skips spreads, explicit undefined, require and import()', () => {
    expect(mutate(droppedArgument, "async function f(a) { g(...a); h(a, undefined); require('x'); await import('y'); k(); }")).toEqual([]);
  });

  it('works on TypeScript', () => {
    expect(mutate(droppedArgument, 'function f(a: string) { return parse<number>(a, 10); }', 'src/example.ts')).toEqual([
      'function f(a: string) { return parse<number>(a); }',
    ]);
  });
});
