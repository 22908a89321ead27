import { disjoint } from '../edits.js';
import type { Site } from '../../pipeline/store/records.js';
import { operatorsGenerator } from './operators.js';
import type { BugGenerator } from './types.js';

export const MULTI_SITE = 'multi-site';

/**
 * Several bugs in one unit at once, the harder kind of task: each of the unit's single-site
 * edits joins with `probability`, overlapping ones are left out; null when fewer than two joined.
 */
export function multiSiteEdits(unitSites: readonly Site[], probability: number, random: () => number): Site[] | null {
  const chosen: Site[] = [];
  for (const site of unitSites) {
    if (random() < probability && disjoint([...chosen, site])) chosen.push(site);
  }
  return chosen.length >= 2 ? chosen : null;
}

/** One multi-site candidate per unit, from the operators' admitted single-site mutants of that unit. */
export const multiSiteGenerator: BugGenerator = {
  name: MULTI_SITE,
  description: "several of one unit's operator mutants at once",
  stage: 'mutate',
  budget: 'mutants',
  sampling: 'spread',
  strategies: () => [{ strategy: MULTI_SITE, family: MULTI_SITE }],
  enabled: (settings) => settings.sources.includes('operators') && settings.multiSite > 0,
  *propose({ admitted, settings, random }) {
    const byUnit = new Map<string, Site[]>();
    for (const proposal of admitted) {
      if (proposal.provenance.generator !== operatorsGenerator.name) continue;
      byUnit.set(proposal.unitKey, [...(byUnit.get(proposal.unitKey) ?? []), ...proposal.sites]);
    }
    for (const [unitKey, unitSites] of byUnit) {
      if (unitSites.length < 2) continue;
      const chosen = multiSiteEdits(unitSites, settings.multiSite, random);
      if (chosen)
        yield {
          provenance: { generator: MULTI_SITE, strategy: MULTI_SITE, family: MULTI_SITE, units: [chosen[0]!.unit], origin: null },
          sites: chosen,
          unitKey,
        };
    }
  },
};
