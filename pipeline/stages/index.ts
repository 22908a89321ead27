import { UserError } from '../common/errors.js';
import type { StageName } from '../store/run-store.js';
import { combine } from './combine.js';
import type { StageContext, StageResult } from './context.js';
import { exportDataset } from './export.js';
import { issues } from './issues.js';
import { mutate } from './mutate.js';
import { setup } from './setup.js';
import { validate } from './validate.js';

/** The stages in pipeline order; each reads the store records of the one before. */
export const STAGES: ReadonlyArray<{ name: StageName; run: (ctx: StageContext) => Promise<StageResult> }> = [
  { name: 'setup', run: setup },
  { name: 'mutate', run: mutate },
  { name: 'validate', run: validate },
  { name: 'combine', run: combine },
  { name: 'issues', run: issues },
  { name: 'export', run: exportDataset },
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
