import { describe, expect, it } from 'vitest';
import { removedDefaultValue } from '../../mutators/operators/removed-default-value.js';
import { mutate } from './helpers.js';

describe('removed-default-value', () => {
  it('removes parameter and destructuring defaults, shorthand ones included', () => {
    expect(mutate(removedDefaultValue, 'function f(a, b = 1, { x = 2, y: z = 3 } = {}) { const [w = 4] = a; }')).toEqual([
      'function f(a, b, { x = 2, y: z = 3 } = {}) { const [w = 4] = a; }',
      'function f(a, b = 1, { x = 2, y: z = 3 }) { const [w = 4] = a; }',
      'function f(a, b = 1, { x, y: z = 3 } = {}) { const [w = 4] = a; }',
      'function f(a, b = 1, { x = 2, y: z } = {}) { const [w = 4] = a; }',
      'function f(a, b = 1, { x = 2, y: z = 3 } = {}) { const [w] = a; }',
    ]);
  });

  it('skips defaults that are undefined anyway', () => {
    expect(mutate(removedDefaultValue, 'function f(a = undefined, b = void 0) {}')).toEqual([]);
  });

  it('keeps the TypeScript annotation', () => {
    expect(
      mutate(removedDefaultValue, 'class A { constructor(private n: number = 1) {} } function f(b: string = "x") {}', 'src/example.ts'),
    ).toEqual([
      'class A { constructor(private n: number) {} } function f(b: string = "x") {}',
      'class A { constructor(private n: number = 1) {} } function f(b: string) {}',
    ]);
  });
});
