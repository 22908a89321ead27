import { UserError } from '../common/errors.js';
import type { StageName } from '../store/run-store.js';
import { combine } from './combine.js';
import type { StageContext, StageResult } from './context.js';
import { exportDataset } from './export.js';
import { issues } from './issues.js';
import { mutate } from './mutate.js';
import { setup } from './setup.js';
import { validate } from './validate.js';

type Stage = (ctx: StageContext) => Promise<StageResult>;

/** A stage that records its wall time in its summary once it has done its work (not when it was already done). */
export function timed(name: StageName, run: Stage): Stage {
  return async (ctx) => {
    const started = performance.now();
    const result = await run(ctx);
    if (result.alreadyDone) return result;
    const durationMs = Math.round(performance.now() - started);
    const summary = ctx.store.stageSummary(name);
    if (summary) ctx.store.finishStage(name, { ...summary, durationMs });
    return { ...result, durationMs };
  };
}

/** The stages in pipeline order; each reads the store records of the one before. */
export const STAGES: ReadonlyArray<{ name: StageName; run: Stage }> = [
  { name: 'setup', run: timed('setup', setup) },
  { name: 'mutate', run: timed('mutate', mutate) },
  { name: 'validate', run: timed('validate', validate) },
  { name: 'combine', run: timed('combine', combine) },
  { name: 'issues', run: timed('issues', issues) },
  { name: 'export', run: timed('export', exportDataset) },
];

/** Refuses to run a stage before the ones it depends on. */
export function requireEarlierStages(ctx: StageContext, stage: StageName, target: string): void {
  for (const earlier of STAGES) {
    if (earlier.name === stage) return;
    const summary = ctx.store.stageSummary(earlier.name);
    if (!summary) {
      throw new UserError(
        `the ${earlier.name} stage has not finished for this run`,
        `run \`swesynth ${earlier.name} ${target}\` first, or \`swesynth run ${target}\` for every stage`,
      );
    }
    if ('killOnly' in summary && summary.killOnly) {
      throw new UserError(
        `the ${earlier.name} stage of this run was a kill screen (--kill-only), which makes no tasks`,
        `run \`swesynth ${earlier.name} ${target}\` without --kill-only first`,
      );
    }
  }
}
