import { z } from 'zod';
import { TIERS, Tier } from './difficulty.js';
import { testIdsOf, type Instance } from './instance.js';

/** Which kept tasks an export takes: realism bound first, then the tiers asked for, then a cap per function. */
export interface CurationRule {
  /** The most FAIL_TO_PASS tests a task may have, as a share of the repository's stable tests. */
  maxF2pShare: number;
  tiers: readonly Tier[];
  /** The most tasks of one function (its file and name); null: no cap. */
  maxPerFunction: number | null;
}

/** What curation dropped from one repository's tasks, by reason, with the rule it applied. */
export const Curation = z.object({
  rule: z.object({ maxF2pShare: z.number(), tiers: z.array(Tier), maxPerFunction: z.number().int().nullable() }),
  stableTests: z.number().int(),
  dropped: z.object({
    f2pShare: z.number().int(),
    tier: z.number().int(),
    perFunction: z.number().int(),
    /** Tasks the export's self-check failed (absent before it could leave any out). */
    selfCheck: z.number().int().optional(),
  }),
});
export type Curation = z.infer<typeof Curation>;

/**
 * The tasks an export keeps, in their order. A bug that breaks a large share of the suite at once
 * is not the kind people report; many tasks of one function teach the same thing, so the first
 * ones (in the sampler's random order) stay. A task without a difficulty record (from a run made
 * before difficulty was measured) passes the tier filter only when every tier is asked for.
 */
/** A task failing this many tests or fewer is never too broad: in a small suite, a few tests are a large share. */
export const FEW_FAILING = 10;

export function curate(instances: readonly Instance[], stableTests: number, rule: CurationRule): { kept: Instance[]; curation: Curation } {
  const dropped = { f2pShare: 0, tier: 0, perFunction: 0 };
  const perFunction = new Map<string, number>();
  const everyTier = TIERS.every((tier) => rule.tiers.includes(tier));
  const drop = (reason: keyof typeof dropped) => {
    dropped[reason]++;
    return false;
  };
  const kept = instances.filter((instance) => {
    const failing = testIdsOf(instance.FAIL_TO_PASS).length;
    if (failing > FEW_FAILING && failing > rule.maxF2pShare * stableTests) return drop('f2pShare');
    const tier = instance.difficulty?.tier;
    if (!(tier ? rule.tiers.includes(tier) : everyTier)) return drop('tier');
    const key = `${instance.mutation.file}\0${instance.mutation.function}`;
    const seen = perFunction.get(key) ?? 0;
    if (rule.maxPerFunction !== null && seen >= rule.maxPerFunction) return drop('perFunction');
    perFunction.set(key, seen + 1);
    return true;
  });
  return { kept, curation: { rule: { ...rule, tiers: [...rule.tiers] }, stableTests, dropped } };
}
