import { combinedGenerator } from './combined.js';
import { historyGenerator } from './history.js';
import { multiSiteGenerator } from './multi-site.js';
import { operatorsGenerator } from './operators.js';
import type { BugGenerator } from './types.js';

/**
 * Every bug source, in the order the chain runs them: when two make the same bug, the first keeps
 * it, so the operators' candidates stay the same whichever other sources join them.
 */
export const GENERATORS: readonly BugGenerator[] = [operatorsGenerator, multiSiteGenerator, historyGenerator, combinedGenerator];

/** The generators of a stage that the settings turn on. */
export function generatorsFor(stage: BugGenerator['stage'], ...enabled: Parameters<BugGenerator['enabled']>): BugGenerator[] {
  return GENERATORS.filter((generator) => generator.stage === stage && generator.enabled(...enabled));
}
