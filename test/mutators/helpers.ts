import { applyEdit } from '../../mutators/edits.js';
import { mutantsOf } from '../../mutators/generate.js';
import { parseSource } from '../../mutators/parse.js';
import type { Operator } from '../../mutators/types.js';

/** The code of every mutant one operator makes of `code`. */
export function mutate(operator: Operator, code: string, path = 'src/example.js'): string[] {
  return mutantsOf(parseSource(path, code), [operator]).map((mutant) => applyEdit(code, mutant.edit));
}
