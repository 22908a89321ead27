import { describe, expect, it } from 'vitest';
import { breakContinueSwap } from '../../mutators/operators/break-continue-swap.js';
import { mutate } from './helpers.js';

describe('break-continue-swap', () => {
  it('swaps break and continue in loops', () => {
    expect(mutate(breakContinueSwap, 'function f(xs) { for (const x of xs) { if (x < 0) continue; if (x > 9) break; g(x); } }')).toEqual([
      'function f(xs) { for (const x of xs) { if (x < 0) break; if (x > 9) break; g(x); } }',
      'function f(xs) { for (const x of xs) { if (x < 0) continue; if (x > 9) continue; g(x); } }',
    ]);
  });

  it('leaves a break that ends a switch case alone, even inside a loop, but not a loop inside the case', () => {
    const code = 'function f(xs) { while (xs.length) { switch (xs.pop()) { case 1: break; case 2: for (;;) { if (g()) break; } } } }';
    expect(mutate(breakContinueSwap, code)).toEqual([
      'function f(xs) { while (xs.length) { switch (xs.pop()) { case 1: break; case 2: for (;;) { if (g()) continue; } } } }',
    ]);
  });

  it('does not swap a continue inside a switch: as a break it would only leave the switch', () => {
    expect(mutate(breakContinueSwap, 'function f(xs) { for (const x of xs) { switch (x) { case 1: continue; } g(x); } }')).toEqual([]);
  });

  it('leaves labeled jumps alone', () => {
    expect(
      mutate(
        breakContinueSwap,
        'function f(m) { outer: for (const row of m) { for (const x of row) { if (x) continue outer; if (!x) break outer; } } }',
      ),
    ).toEqual([]);
  });

  it('works in TypeScript', () => {
    expect(
      mutate(breakContinueSwap, 'function f(xs: number[]): void { do { if (xs.pop()! > 0) break; } while (xs.length); }', 'src/example.ts'),
    ).toEqual(['function f(xs: number[]): void { do { if (xs.pop()! > 0) continue; } while (xs.length); }']);
  });
});
