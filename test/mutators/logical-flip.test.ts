import { describe, expect, it } from 'vitest';
import { logicalFlip } from '../../mutators/operators/logical-flip.js';
import { mutate } from './helpers.js';

describe('logical-flip', () => {
  it('swaps && and || but leaves ?? alone', () => {
    expect(mutate(logicalFlip, 'const f = (a, b, c) => (a && b) || (c ?? a);')).toEqual([
      'const f = (a, b, c) => (a && b) && (c ?? a);',
      'const f = (a, b, c) => (a || b) || (c ?? a);',
    ]);
  });
});
