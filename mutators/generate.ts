import { applyEdit, lineAt } from './edits.js';
import { parses } from './parse.js';
import { discoverUnits } from './units.js';
import type { Edit, Operator, SourceFile } from './types.js';

export interface Mutant {
  operator: Operator;
  file: string;
  unit: string;
  edit: Edit;
  /** The text the edit replaced. */
  original: string;
  mutatedText: string;
  startLine: number;
  endLine: number;
}

/**
 * Every mutant of a file, in source order per operator. Mutants that do not parse or leave the
 * text unchanged are dropped, and so are duplicates (two operators making the same text).
 */
export function mutantsOf(file: SourceFile, operators: readonly Operator[]): Mutant[] {
  const seen = new Set<string>([file.text]);
  const mutants: Mutant[] = [];
  const units = discoverUnits(file);
  for (const operator of operators) {
    for (const unit of units) {
      for (const edit of operator.sites(unit, file)) {
        const mutatedText = applyEdit(file.text, edit);
        if (seen.has(mutatedText) || !parses(file.path, mutatedText)) continue;
        seen.add(mutatedText);
        mutants.push({
          operator,
          file: file.path,
          unit: unit.name,
          edit,
          original: file.text.slice(edit.start, edit.end),
          mutatedText,
          startLine: lineAt(file.text, edit.start),
          endLine: lineAt(file.text, Math.max(edit.start, edit.end - 1)),
        });
      }
    }
  }
  return mutants;
}
