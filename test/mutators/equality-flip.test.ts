import { describe, expect, it } from 'vitest';
import { equalityFlip } from '../../mutators/operators/equality-flip.js';
import { mutate } from './helpers.js';

describe('equality-flip', () => {
  it('inverts strict and loose equality', () => {
    expect(mutate(equalityFlip, 'function f(a) { return a === 1 && a != null; }')).toEqual([
      'function f(a) { return a !== 1 && a != null; }',
      'function f(a) { return a === 1 && a == null; }',
    ]);
  });

  it('works in TypeScript with type annotations', () => {
    expect(mutate(equalityFlip, 'export function f(a: number): boolean { return a !== 0; }', 'src/f.ts')).toEqual([
      'export function f(a: number): boolean { return a === 0; }',
    ]);
  });
});
