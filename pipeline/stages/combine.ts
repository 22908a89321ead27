import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { disjoint } from '../../mutators/edits.js';
import { candidateId, filesOf, patchesOf } from '../store/candidates.js';
import type { StageContext, StageResult } from './context.js';
import { seededRandom, shuffle } from '../common/random.js';
import type { Candidate } from '../store/records.js';
import { judgeCandidates, type Review } from './validate.js';

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

/**
 * Combine: merges kept bugs of one file or module into harder tasks. A merged candidate is
 * validated as a whole, and kept only when its FAIL_TO_PASS is exactly the union of its parts'
 * (otherwise one bug hides or changes another, and the verdict is `interfered`).
 */
export async function combine(ctx: StageContext): Promise<StageResult> {
  const { store, log } = ctx;
  const done = store.stageSummary('combine');
  if (done) return { stage: 'combine', alreadyDone: true, ...done };
  const settings = store.getMeta('mutation')!;
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
  const candidates = store.candidates();

  // The merged candidates are made once; a resumed run judges the ones still without a verdict.
  if (!candidates.some((candidate) => candidate.operator === COMBINED) && ctx.options.combine > 0) {
    const { workspace } = ctx.store.environment();
    const kept = candidates.filter((candidate) => verdicts.get(candidate.id)?.status === 'kept');
    const originalOf = (file: string) => readFileSync(join(workspace, file), 'utf8');
    store.saveCandidates(
      pairsToCombine(kept, ctx.options.combine, settings.seed).map((parts) => {
        const sites = parts.flatMap((part) => part.sites);
        return {
          id: candidateId(COMBINED, sites),
          operator: COMBINED,
          family: COMBINED,
          file: sites[0]!.file,
          unit: sites[0]!.unit,
          sites,
          parents: parts.map((part) => part.id),
          ...patchesOf(sites, originalOf),
        };
      }),
    );
  }

  const review: Review = (candidate, outcome) => {
    if (outcome.verdict.status !== 'kept') return outcome;
    const union = new Set(candidate.parents.flatMap((parent) => verdicts.get(parent)!.failToPass));
    const failToPass = new Set(outcome.verdict.failToPass);
    const same = union.size === failToPass.size && [...union].every((test) => failToPass.has(test));
    if (same) return outcome;
    return {
      verdict: {
        ...outcome.verdict,
        status: 'interfered',
        detail: `FAIL_TO_PASS has ${failToPass.size} tests, the parts' union ${union.size}`,
      },
      failed: [],
    };
  };
  const pending = store.unvalidated().filter((candidate) => candidate.operator === COMBINED);
  await judgeCandidates(ctx, 'combine', pending, review);

  const combined = store.candidates().filter((candidate) => candidate.operator === COMBINED);
  const statuses = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict.status]));
  const summary = { combined: combined.length, kept: combined.filter((candidate) => statuses.get(candidate.id) === 'kept').length };
  store.finishStage('combine', summary);
  if (combined.length > 0) log.info(`combine: ${summary.kept} of ${summary.combined} merged candidates kept`);
  return { stage: 'combine', alreadyDone: false, ...summary };
}
