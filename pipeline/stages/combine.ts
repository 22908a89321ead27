import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runChain } from '../../mutators/chain.js';
import { generatorsFor } from '../../mutators/generators/index.js';
import { TypeCheck } from '../../mutators/type-check.js';
import type { StageContext, StageResult } from './context.js';
import type { Candidate } from '../store/records.js';
import { judgeCandidates, type Review } from './validate.js';

/** The kept candidates a combined candidate merges; null for every other kind. */
const partsOf = (candidate: Candidate): string[] | null =>
  candidate.provenance.origin?.kind === 'merge' ? candidate.provenance.origin.parents : null;

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
  const generators = generatorsFor('combine', settings, ctx.options.combine);
  if (!candidates.some((candidate) => partsOf(candidate)) && generators.length > 0) {
    const { workspace } = ctx.store.environment();
    const texts = new Map<string, string>();
    const read = (file: string) => texts.get(file) ?? texts.set(file, readFileSync(join(workspace, file), 'utf8')).get(file)!;
    const kept = candidates.filter((candidate) => verdicts.get(candidate.id)?.status === 'kept');
    const made = await runChain(
      generators,
      {
        workspace,
        repository: { location: ctx.location, cloned: false },
        sourceFiles: [],
        testFiles: new Set(),
        read,
        settings,
        combine: ctx.options.combine,
        random: () => 0,
        log,
        kept,
        report: {},
      },
      {
        caps: { maxCandidates: null, maxPerOperator: null, maxPerUnit: null },
        seed: settings.seed,
        existing: candidates,
        openTypeCheck: () => TypeCheck.open(workspace),
      },
    );
    store.saveCandidates(made.candidates);
  }

  const review: Review = (candidate, outcome) => {
    if (outcome.verdict.status !== 'kept') return outcome;
    const union = new Set((partsOf(candidate) ?? []).flatMap((parent) => verdicts.get(parent)!.failToPass));
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
  const pending = store.unvalidated().filter((candidate) => partsOf(candidate));
  await judgeCandidates(ctx, 'combine', pending, review);

  const combined = store.candidates().filter((candidate) => partsOf(candidate));
  const statuses = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict.status]));
  const summary = { combined: combined.length, kept: combined.filter((candidate) => statuses.get(candidate.id) === 'kept').length };
  store.finishStage('combine', summary);
  if (combined.length > 0) log.info(`combine: ${summary.kept} of ${summary.combined} merged candidates kept`);
  return { stage: 'combine', alreadyDone: false, ...summary };
}
