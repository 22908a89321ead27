import { UserError } from '../../common/errors.js';
import { bundle } from './bundle.js';
import { finetune } from './finetune.js';
import { harbor } from './harbor.js';
import { splits } from './splits.js';
import { sweBench } from './swe-bench.js';
import { tasks } from './tasks.js';
import type { ExportFormat } from './types.js';

/** Every export format, in the order they are prepared and written. */
export const FORMATS: readonly ExportFormat[] = [sweBench, splits, finetune, tasks, bundle, harbor];
export const FORMAT_NAMES = ['swe-bench', 'splits', 'finetune', 'tasks', 'bundle', 'harbor'] as const;
export type FormatName = (typeof FORMAT_NAMES)[number];
/** What --formats writes unless told otherwise: every format that needs no Docker engine. */
export const DEFAULT_FORMATS: FormatName[] = FORMAT_NAMES.filter((name) => !formatNamed(name).needsDocker);
/** What a dataset written before formats were chosen holds. */
export const FORMATS_BEFORE_CHOICE: readonly string[] = ['swe-bench', 'splits', 'finetune', 'tasks'];

function formatNamed(name: string): ExportFormat {
  const format = FORMATS.find((candidate) => candidate.name === name);
  if (!format) throw new UserError(`unknown export format ${name}`, `the formats are ${FORMAT_NAMES.join(', ')}`);
  return format;
}

/** The formats to write for the names chosen: with those they require, and swe-bench, which every reader needs. */
export function formatsFor(names: readonly string[]): ExportFormat[] {
  const chosen = new Set<string>();
  const add = (name: string) => {
    if (chosen.has(name)) return;
    chosen.add(name);
    for (const required of formatNamed(name).requires) add(required);
  };
  for (const name of ['swe-bench', ...names]) add(name);
  return FORMATS.filter((format) => chosen.has(format.name));
}

/** The formats a dataset holds, as its manifest names them; a dataset from before the choice holds the first four. */
export const formatsOf = (manifest: { formats?: readonly string[] | undefined }): ExportFormat[] =>
  (manifest.formats ?? FORMATS_BEFORE_CHOICE).map(formatNamed);
