import { applyEdits, disjoint } from './edits.js';
import type { Mutant } from './generate.js';
import { parses } from './parse.js';

export interface MultiSiteMutant {
  sites: Mutant[];
  mutatedText: string;
}

/**
 * Several bugs in one unit at once, the harder kind of task: each of the unit's single mutants
 * joins with `probability`, overlapping ones are left out, and at least two must remain.
 */
export function multiSiteMutant(unitMutants: readonly Mutant[], originalText: string, probability: number, random: () => number): MultiSiteMutant | null {
  const chosen: Mutant[] = [];
  for (const mutant of unitMutants) {
    if (random() < probability && disjoint([...chosen.map((site) => site.edit), mutant.edit])) chosen.push(mutant);
  }
  if (chosen.length < 2) return null;
  const mutatedText = applyEdits(originalText, chosen.map((site) => site.edit));
  return parses(chosen[0]!.file, mutatedText) ? { sites: chosen, mutatedText } : null;
}
