import { lineAt } from './edits.js';
import { Screen } from './chain.js';
import { discoverUnits, withinBounds, type UnitBounds } from './units.js';
import type { Edit, Operator, SourceFile, Unit } from './types.js';
import type { Site } from '../pipeline/store/records.js';

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

/** Every edit the operators make in the file's units (within `bounds`), in source order per operator, unchecked. */
export function* editsOf(file: SourceFile, operators: readonly Operator[], bounds?: UnitBounds): Generator<Mutant> {
  const units = discoverUnits(file).filter((unit) => !bounds || withinBounds(unit, bounds));
  for (const operator of operators) {
    for (const unit of units) {
      for (const edit of operator.sites(unit, file)) {
        yield {
          operator,
          file: file.path,
          unit,
          edit,
          original: file.text.slice(edit.start, edit.end),
          startLine: lineAt(file.text, edit.start),
          endLine: lineAt(file.text, Math.max(edit.start, edit.end - 1)),
        };
      }
    }
  }
}

/** A mutant as a record: plain data, so the file's syntax tree can go once the file is done. */
export function siteOf(mutant: Mutant): Site {
  return {
    file: mutant.file,
    operator: mutant.operator.name,
    unit: mutant.unit.name,
    ...mutant.edit,
    original: mutant.original,
    startLine: mutant.startLine,
    endLine: mutant.endLine,
  };
}

/**
 * Every mutant of a file, in source order per operator, as the shared chain admits them: mutants
 * that do not parse or leave the text unchanged are dropped, and so are duplicates (two operators
 * making the same text).
 */
export function mutantsOf(file: SourceFile, operators: readonly Operator[], { bounds }: { bounds?: UnitBounds } = {}): Mutant[] {
  const screen = new Screen(() => file.text);
  return [...editsOf(file, operators, bounds)].filter((mutant) => screen.admit([siteOf(mutant)]));
}
