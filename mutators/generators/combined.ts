import { dirname } from 'node:path';
import { seededRandom, shuffle } from '../../pipeline/common/random.js';
import { filesOf } from '../../pipeline/store/candidates.js';
import type { Candidate } from '../../pipeline/store/records.js';
import { disjoint } from '../edits.js';
import { unitKeyOf, type BugGenerator } from './types.js';

export const COMBINED = 'combined';

/** Two candidates can merge when no edit of one overlaps an edit of the other. */
function compatible(a: Candidate, b: Candidate): boolean {
  const sites = [...a.sites, ...b.sites];
  return filesOf(sites).every((file) => disjoint(sites.filter((site) => site.file === file)));
}

/**
 * Pairs of kept candidates to merge: bugs of one file first, then of one folder (a module), taken
 * round-robin over the files so the harder tasks spread over the repository. Each kept candidate
 * joins at most one pair, and a pair's edits must not overlap.
 */
export function pairsToCombine(kept: readonly Candidate[], count: number, seed: number): Candidate[][] {
  const random = seededRandom(seed);
  const used = new Set<Candidate>();
  const pairs: Candidate[][] = [];
  for (const scope of [(candidate: Candidate) => candidate.file, (candidate: Candidate) => dirname(candidate.file)]) {
    const groups = new Map<string, Candidate[]>();
    for (const candidate of shuffle(kept, random)) {
      if (used.has(candidate)) continue;
      groups.set(scope(candidate), [...(groups.get(scope(candidate)) ?? []), candidate]);
    }
    let progressed = true;
    while (pairs.length < count && progressed) {
      progressed = false;
      for (const group of groups.values()) {
        if (pairs.length >= count) break;
        const first = group.find((candidate) => !used.has(candidate));
        const second = first && group.find((candidate) => !used.has(candidate) && candidate !== first && compatible(first, candidate));
        if (!first || !second) continue;
        used.add(first).add(second);
        pairs.push([first, second]);
        progressed = true;
      }
    }
  }
  return pairs;
}

/** Kept bugs of one file or module merged in pairs, after validation: harder tasks from proven parts. */
export const combinedGenerator: BugGenerator = {
  name: COMBINED,
  description: 'pairs of kept bugs of one file or module, merged',
  stage: 'combine',
  budget: COMBINED,
  sampling: 'ranked',
  strategies: () => [{ strategy: COMBINED, family: COMBINED }],
  enabled: (_settings, combine) => combine > 0,
  *propose({ kept, combine, settings }) {
    for (const parts of pairsToCombine(kept, combine, settings.seed)) {
      const sites = parts.flatMap((part) => part.sites);
      yield {
        provenance: {
          generator: COMBINED,
          strategy: COMBINED,
          family: COMBINED,
          units: [...new Set(parts.flatMap((part) => part.provenance.units))],
          origin: { kind: 'merge', parents: parts.map((part) => part.id) },
        },
        sites,
        unitKey: unitKeyOf(sites[0]!.file, sites[0]!.unit, sites[0]!.startLine),
      };
    }
  },
};
