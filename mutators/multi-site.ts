import { applyEdits, disjoint } from './edits.js';
import { parses } from './parse.js';
import type { Edit } from './types.js';

/**
 * Several bugs in one unit at once, the harder kind of task: each of the unit's single-site
 * edits joins with `probability`, overlapping ones are left out, and at least two must remain.
 * The chosen edits, or null when fewer than two joined or their sum does not parse.
 */
export function multiSiteEdits<T extends Edit>(
  path: string,
  originalText: string,
  unitEdits: readonly T[],
  probability: number,
  random: () => number,
): T[] | null {
  const chosen: T[] = [];
  for (const edit of unitEdits) {
    if (random() < probability && disjoint([...chosen, edit])) chosen.push(edit);
  }
  return chosen.length >= 2 && parses(path, applyEdits(originalText, chosen)) ? chosen : null;
}
