import { describe, expect, it } from 'vitest';
import { selectSpread } from '../../mutators/sampling.js';

interface Item {
  id: number;
  operator: string;
  unitKey: string;
}

/** `perUnit` items for each of `units` units, operators cycling through `operators`. */
function pool(units: number, perUnit: number, operators = ['a', 'b', 'c']): Item[] {
  const items: Item[] = [];
  for (let unit = 0; unit < units; unit++) {
    for (let i = 0; i < perUnit; i++) items.push({ id: items.length, operator: operators[i % operators.length]!, unitKey: `u${unit}` });
  }
  return items;
}

const NO_CAPS = { maxCandidates: null, maxPerOperator: null, maxPerUnit: null };
const countBy = (items: Item[], key: (item: Item) => string) =>
  items.reduce((counts, item) => counts.set(key(item), (counts.get(key(item)) ?? 0) + 1), new Map<string, number>());

describe('spread sampling', () => {
  it('takes everything, in the original order, when nothing is capped', () => {
    const items = pool(4, 5);
    expect(selectSpread(items, NO_CAPS, 1, () => true)).toEqual(items);
  });

  it('spreads a capped sample over the units instead of draining one', () => {
    // One huge unit and nine small ones: a uniform sample would mostly hit the huge one.
    const items = [...pool(1, 500), ...pool(9, 3).map((item) => ({ ...item, id: item.id + 500, unitKey: `small-${item.unitKey}` }))];
    const picked = selectSpread(items, { ...NO_CAPS, maxCandidates: 20 }, 7, () => true);
    expect(picked).toHaveLength(20);
    expect(countBy(picked, (item) => item.unitKey).size).toBe(10);
    expect(Math.max(...countBy(picked, (item) => item.unitKey).values())).toBeLessThanOrEqual(3);
  });

  it('keeps the per-unit and per-operator caps', () => {
    const picked = selectSpread(pool(10, 9), { maxCandidates: null, maxPerOperator: 8, maxPerUnit: 2 }, 3, () => true);
    expect(Math.max(...countBy(picked, (item) => item.unitKey).values())).toBe(2);
    expect(Math.max(...countBy(picked, (item) => item.operator).values())).toBeLessThanOrEqual(8);
    expect(picked).toHaveLength(20);
  });

  it('gives a unit each operator once before any operator twice', () => {
    const picked = selectSpread(pool(1, 12), { ...NO_CAPS, maxPerUnit: 3 }, 5, () => true);
    expect(new Set(picked.map((item) => item.operator))).toEqual(new Set(['a', 'b', 'c']));
  });

  it('fills the sample past refused items, which count against no cap', () => {
    const refused = new Set<number>();
    const picked = selectSpread(pool(2, 6), { ...NO_CAPS, maxCandidates: 6, maxPerUnit: 3 }, 2, (item) => {
      if (item.operator === 'a') {
        refused.add(item.id);
        return false;
      }
      return true;
    });
    expect(picked).toHaveLength(6);
    expect(picked.some((item) => refused.has(item.id))).toBe(false);
  });

  it('is deterministic per seed and differs between seeds', () => {
    const items = pool(30, 6);
    const caps = { ...NO_CAPS, maxCandidates: 25 };
    const ids = (seed: number) => selectSpread(items, caps, seed, () => true).map((item) => item.id);
    expect(ids(4)).toEqual(ids(4));
    expect(ids(4)).not.toEqual(ids(5));
  });
});
