import { describe, expect, it } from 'vitest';
import { parseSource } from '../../mutators/parse.js';
import { suspectsOf, type Executed } from '../../pipeline/solve/localize.js';

const SOURCE = `export function parse(text) { return text.split(','); }
export function total(items) { let sum = 0; for (const item of items) sum += item; return sum; }
export class Cart { add(item) { this.items.push(item); } }
`;

describe('fault localization', () => {
  const file = parseSource('src/cart.js', SOURCE);
  const parsed = (path: string) => (path === 'src/cart.js' ? file : null);

  it('ranks the functions the failing run executes by Ochiai, those that passing runs execute too lower', () => {
    const failing = [{ 'src/cart.js': { parse: 1, total: 2 } }];
    const passing: Executed[] = [{ 'src/cart.js': { parse: 3 } }, { 'src/cart.js': { parse: 1, add: 1 } }];
    const suspects = suspectsOf(failing, passing, ['src/cart.js'], parsed);
    expect(suspects.map((suspect) => [suspect.unit.name, Number(suspect.score.toFixed(3))])).toEqual([
      ['total', 1],
      ['parse', 0.577],
    ]);
  });

  it('reads built output as the source it is built from, and a method by the short name V8 gives it', () => {
    const failing = [{ 'dist/cart.js': { add: 1 } }];
    const suspects = suspectsOf(failing, [], ['src/cart.js'], parsed);
    expect(suspects.map((suspect) => `${suspect.file} ${suspect.unit.name}`)).toEqual(['src/cart.js Cart.add']);
  });
});
