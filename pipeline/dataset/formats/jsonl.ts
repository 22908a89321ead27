import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../common/errors.js';

export const jsonLines = (rows: readonly unknown[]) => rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length > 0 ? '\n' : '');

/** The rows of a JSON Lines text; a line that is not JSON is one clear message naming it. */
export function rowsOf(text: string, file: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new UserError(`${file} line ${index + 1} is not JSON`, 'the dataset is damaged: export it again');
      }
    });
}

/** The rows of a dataset's JSON Lines file, none when it is missing. */
export const rowsIn = (dir: string, file: string): unknown[] =>
  existsSync(join(dir, file)) ? rowsOf(readFileSync(join(dir, file), 'utf8'), file) : [];
