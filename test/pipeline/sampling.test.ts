import { describe, expect, it } from 'vitest';
import { selectRanked, selectSpread } from '../../mutators/sampling.js';

interface Item {
  id: number;
  operator: string;
  unitKey: string;
  reached?: boolean;
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

describe('code no test executes', () => {
  // Units u0 to u5, of which u1, u3 and u5 no test reaches: validation would find their bugs survived without a run.
  const items = pool(6, 4).map((item) => ({ ...item, reached: !['u1', 'u3', 'u5'].includes(item.unitKey) }));

  it('is sampled only when the reached units are used up', () => {
    const capped = selectSpread(items, { ...NO_CAPS, maxCandidates: 10 }, 3, () => true);
    expect(capped).toHaveLength(10);
    expect(capped.every((item) => item.reached)).toBe(true);
    const more = selectSpread(items, { ...NO_CAPS, maxCandidates: 15 }, 3, () => true);
    expect(more.filter((item) => item.reached)).toHaveLength(12);
    expect(more.filter((item) => !item.reached)).toHaveLength(3);
    expect(selectSpread(items, NO_CAPS, 3, () => true)).toEqual(items);
  });

  it('comes after every reached item in a ranked sample too', () => {
    const picked = selectRanked(items, { ...NO_CAPS, maxCandidates: 14 }, () => true);
    expect(picked.slice(0, 12).every((item) => item.reached)).toBe(true);
    expect(picked.slice(12).map((item) => item.unitKey)).toEqual(['u1', 'u1']);
  });
});
