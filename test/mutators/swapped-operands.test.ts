import { describe, expect, it } from 'vitest';
import { swappedOperands } from '../../mutators/operators/swapped-operands.js';
import { mutate } from './helpers.js';

describe('swapped-operands', () => {
  it('swaps the operands of non-commutative operators and keeps comparison operators', () => {
    expect(mutate(swappedOperands, 'function f(a, b) { return a - b < a / b && a + b > a * b; }')).toEqual([
      'function f(a, b) { return a / b < a - b && a + b > a * b; }',
      'function f(a, b) { return b - a < a / b && a + b > a * b; }',
      'function f(a, b) { return a - b < b / a && a + b > a * b; }',
      'function f(a, b) { return a - b < a / b && a * b > a + b; }',
    ]);
  });

  it('moves parentheses with their operand and adds those the new position needs', () => {
    expect(mutate(swappedOperands, 'function f(a, b, c) { return (a + b) % c - 1; }')).toEqual([
      'function f(a, b, c) { return 1 - (a + b) % c; }',
      'function f(a, b, c) { return c % (a + b) - 1; }',
    ]);
    expect(mutate(swappedOperands, 'function f(a, b, c) { return a - b - c; }')).toEqual([
      'function f(a, b, c) { return c - (a - b); }',
      'function f(a, b, c) { return b - a - c; }',
    ]);
  });

  it('respects the right-associative, unary-shy **', () => {
    expect(mutate(swappedOperands, 'function f(a, b, c) { return a ** b ** c + a ** -b; }')).toEqual([
      'function f(a, b, c) { return (b ** c) ** a + a ** -b; }',
      'function f(a, b, c) { return a ** c ** b + a ** -b; }',
      'function f(a, b, c) { return a ** b ** c + (-b) ** a; }',
    ]);
  });

  it('skips identical operands, two literals and commutative operators', () => {
    expect(mutate(swappedOperands, 'function f(a, b) { return [a - a, (a) < a, 1 << 4, 2 - -1, a + b, a * b, a === b]; }')).toEqual([]);
  });

  it('works on TypeScript', () => {
    expect(mutate(swappedOperands, 'function f(a: unknown, n: number) { return (a as number) >= n; }', 'src/example.ts')).toEqual([
      'function f(a: unknown, n: number) { return n >= (a as number); }',
    ]);
  });
});
