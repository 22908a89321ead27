import { createHash } from 'node:crypto';
import type { Instance } from './instance.js';

export type SplitRule = 'hash' | 'repo';
export const SPLITS = ['train', 'test'] as const;
export type Split = (typeof SPLITS)[number];

/** A stable number in [0, 1) from a text: the same id lands in the same split in every version. */
function unitInterval(text: string): number {
  return createHash('sha256').update(text).digest().readUInt32BE(0) / 2 ** 32;
}

/**
 * The split of an instance: by a hash of its id, or by a hash of its repository (then a whole
 * repository is train or test, so a model is tested on code it never saw).
 */
export function splitOf(instance: Instance, rule: SplitRule, testShare: number): Split {
  return unitInterval(rule === 'repo' ? instance.repo : instance.instance_id) < testShare ? 'test' : 'train';
}
