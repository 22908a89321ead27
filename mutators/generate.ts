import { createHash } from 'node:crypto';
import { applyEdit, lineAt } from './edits.js';
import { parses } from './parse.js';
import { discoverUnits, withinBounds, type UnitBounds } from './units.js';
import type { Edit, Operator, SourceFile, Unit } from './types.js';

/** One edit of one operator in one unit; `applyEdit(file.text, edit)` is the mutated code. */
export interface Mutant {
  operator: Operator;
  file: string;
  unit: Unit;
  edit: Edit;
  /** The text the edit replaced. */
  original: string;
  startLine: number;
  endLine: number;
}

/** Per operator: edits proposed, and of those the mutants that parse and are new. */
export type SiteTally = Map<string, { sites: number; parseValid: number }>;

export interface MutantsOptions {
  bounds?: UnitBounds;
  tally?: SiteTally;
}

/**
 * Every mutant of a file, in source order per operator. Mutants that do not parse or leave the
 * text unchanged are dropped, and so are duplicates (two operators making the same text).
 */
export function mutantsOf(file: SourceFile, operators: readonly Operator[], { bounds, tally }: MutantsOptions = {}): Mutant[] {
  // Digests rather than texts: a large file has thousands of mutants.
  const digest = (text: string) => createHash('sha1').update(text).digest('base64');
  const seen = new Set<string>([digest(file.text)]);
  const mutants: Mutant[] = [];
  const units = discoverUnits(file).filter((unit) => !bounds || withinBounds(unit, bounds));
  for (const operator of operators) {
    const counts = tally?.get(operator.name) ?? { sites: 0, parseValid: 0 };
    tally?.set(operator.name, counts);
    for (const unit of units) {
      for (const edit of operator.sites(unit, file)) {
        counts.sites++;
        const mutatedText = applyEdit(file.text, edit);
        const key = digest(mutatedText);
        if (seen.has(key) || !parses(file.path, mutatedText)) continue;
        seen.add(key);
        counts.parseValid++;
        mutants.push({
          operator,
          file: file.path,
          unit,
          edit,
          original: file.text.slice(edit.start, edit.end),
          startLine: lineAt(file.text, edit.start),
          endLine: lineAt(file.text, Math.max(edit.start, edit.end - 1)),
        });
      }
    }
  }
  return mutants;
}
