import { describe, expect, it } from 'vitest';
import { removedReturnValue } from '../../mutators/operators/removed-return-value.js';
import { mutate } from './helpers.js';

describe('removed-return-value', () => {
  it('drops the value of each return', () => {
    expect(mutate(removedReturnValue, 'function f(a) { if (a) return a * 2; return (\n  a.b\n) }')).toEqual([
      'function f(a) { if (a) return; return (\n  a.b\n) }',
      'function f(a) { if (a) return a * 2; return }',
    ]);
  });

  it('skips returns that already return nothing', () => {
    expect(mutate(removedReturnValue, 'function f(a) { if (a) return; if (a.b) return undefined; return void 0; }')).toEqual([]);
  });

  it('leaves concise arrow bodies alone, but not returns in callbacks', () => {
    expect(mutate(removedReturnValue, 'const f = (xs) => xs.map((x) => { return x + 1; });')).toEqual([
      'const f = (xs) => xs.map((x) => { return; });',
    ]);
  });

  it('works in TypeScript', () => {
    expect(mutate(removedReturnValue, 'function f(a: unknown): string { return a as string; }', 'src/example.ts')).toEqual([
      'function f(a: unknown): string { return; }',
    ]);
  });
});
