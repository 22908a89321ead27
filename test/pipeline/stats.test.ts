import { describe, expect, it } from 'vitest';
import { wilson } from '../../pipeline/dataset/stats.js';

describe('yield interval', () => {
  it('is the 95% Wilson score interval', () => {
    const [low, high] = wilson(5, 10);
    expect(low).toBeCloseTo(0.2366, 4);
    expect(high).toBeCloseTo(0.7634, 4);
    const [lowAll, highAll] = wilson(30, 30);
    expect(lowAll).toBeCloseTo(0.8865, 4);
    expect(highAll).toBe(1);
  });

  it('stays inside [0, 1] and is empty without trials', () => {
    expect(wilson(0, 3)[0]).toBe(0);
    expect(wilson(0, 0)).toEqual([0, 0]);
  });
});
