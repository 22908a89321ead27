import { seededRandom, shuffle } from '../pipeline/common/random.js';

/** Caps on the candidates sent to validation; null means no cap. */
export interface SamplingCaps {
  maxCandidates: number | null;
  maxPerOperator: number | null;
  maxPerUnit: number | null;
}

export interface Sampleable {
  operator: string;
  /** Identifies the unit (file and qualified name) the candidate belongs to. */
  unitKey: string;
  /** False when no test executes the item's place (validation finds it survived without a run): it comes after every reached item. */
  reached?: boolean;
}

/** What the tests reach first, then the rest, each group in its order. */
function reachedFirst<U>(list: readonly U[], itemOf: (entry: U) => Sampleable): U[][] {
  return [list.filter((entry) => itemOf(entry).reached !== false), list.filter((entry) => itemOf(entry).reached === false)];
}

/**
 * Picks candidates spread over the units, so that a large repository gives bugs in many functions
 * rather than thousands in one file. Units come in seeded random order, and every round takes the
 * next candidate of each unit; within a unit each operator comes up once before any comes up
 * twice. Units no test reaches come only once the reached ones are used up. `accept` may still
 * refuse an item (the type checker); a refused item counts against no cap. The picked items come
 * back in their original order.
 */
export function selectSpread<T extends Sampleable>(
  items: readonly T[],
  caps: SamplingCaps,
  seed: number,
  accept: (item: T) => boolean,
): T[] {
  const random = seededRandom(seed);
  const byUnit = new Map<string, T[]>();
  for (const item of items) {
    const unit = byUnit.get(item.unitKey) ?? [];
    unit.push(item);
    byUnit.set(item.unitKey, unit);
  }
  const queues = shuffle([...byUnit.values()], random).map((unitItems) => interleaveOperators(shuffle(unitItems, random)));

  const picked = new Set<T>();
  const perUnit = new Map<T[], number>();
  const perOperator = new Map<string, number>();
  const full = () => caps.maxCandidates !== null && picked.size >= caps.maxCandidates;
  // A unit's items are all reached or none: the tests reach a function, not an edit.
  for (let active of reachedFirst(queues, (queue) => queue[0]!)) {
    while (active.length > 0 && !full()) {
      for (const queue of active) {
        if (full()) break;
        while (queue.length > 0) {
          const item = queue.shift()!;
          if (caps.maxPerOperator !== null && (perOperator.get(item.operator) ?? 0) >= caps.maxPerOperator) continue;
          if (accept(item)) {
            picked.add(item);
            perUnit.set(queue, (perUnit.get(queue) ?? 0) + 1);
            perOperator.set(item.operator, (perOperator.get(item.operator) ?? 0) + 1);
          }
          break;
        }
      }
      active = active.filter((queue) => queue.length > 0 && (caps.maxPerUnit === null || (perUnit.get(queue) ?? 0) < caps.maxPerUnit));
    }
  }
  return items.filter((item) => picked.has(item));
}

/** Reorders a unit's items so that each operator's first item comes before any operator's second. */
function interleaveOperators<T extends Sampleable>(items: T[]): T[] {
  const seen = new Map<string, number>();
  const ranked = items.map((item, index) => {
    const rank = seen.get(item.operator) ?? 0;
    seen.set(item.operator, rank + 1);
    return { item, rank, index };
  });
  return ranked.sort((a, b) => a.rank - b.rank || a.index - b.index).map(({ item }) => item);
}

/** Takes items in the order given (best first, reached before unreached) within the caps; `accept` may refuse one, which counts against no cap. */
export function selectRanked<T extends Sampleable>(items: readonly T[], caps: SamplingCaps, accept: (item: T) => boolean): T[] {
  const picked: T[] = [];
  const perUnit = new Map<string, number>();
  const perOperator = new Map<string, number>();
  for (const item of reachedFirst(items, (item) => item).flat()) {
    if (caps.maxCandidates !== null && picked.length >= caps.maxCandidates) break;
    if (caps.maxPerOperator !== null && (perOperator.get(item.operator) ?? 0) >= caps.maxPerOperator) continue;
    if (caps.maxPerUnit !== null && (perUnit.get(item.unitKey) ?? 0) >= caps.maxPerUnit) continue;
    if (!accept(item)) continue;
    picked.push(item);
    perUnit.set(item.unitKey, (perUnit.get(item.unitKey) ?? 0) + 1);
    perOperator.set(item.operator, (perOperator.get(item.operator) ?? 0) + 1);
  }
  return picked;
}
