import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mutantsOf } from '../../mutators/generate.js';
import { parseSource } from '../../mutators/parse.js';
import { OPERATORS } from '../../mutators/registry.js';
import { reporterPath } from '../../pipeline/common/paths.js';
import { mayHaveRun, suspectsOf, type Blocks, type Executed } from '../../pipeline/solve/localize.js';

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

  it("gives every function of a file its best score where a bundler renamed them, as V8 then knows none by the source's name", () => {
    const failing = [{ 'dist/cart.js': { u: 1, f: 2 } }];
    const suspects = suspectsOf(failing, [{ 'dist/cart.js': { u: 1 } }], ['src/cart.js'], parsed);
    expect(suspects.map((suspect) => [suspect.unit.name, suspect.score])).toEqual([
      ['parse', 1],
      ['total', 1],
      ['Cart.add', 1],
    ]);
  });

  it('reads a bundle as the modules that define what it ran, not only its namesake entry', () => {
    const modules = new Map([
      ['src/index.js', parseSource('src/index.js', "export { parse } from './cart.js';\nexport function version() { return 1; }\n")],
      ['src/cart.js', file],
      ['src/parse.js', parseSource('src/parse.js', 'export function parse(text) { return [text]; }\n')],
    ]);
    const failing = [{ 'dist/index.js': { total: 1, version: 1 } }];
    const suspects = suspectsOf(failing, [{ 'dist/index.js': { version: 1 } }], [...modules.keys()], (path) => modules.get(path) ?? null);
    expect(suspects.map((suspect) => [suspect.file, suspect.unit.name, Number(suspect.score.toFixed(3))])).toEqual([
      ['src/cart.js', 'total', 1],
      ['src/index.js', 'version', 0.707],
    ]);
    // A module built on its own is read as its source alone, though another defines a function of the same name.
    expect(suspectsOf([{ 'dist/parse.js': { parse: 1 } }], [], [...modules.keys()], (path) => modules.get(path) ?? null)).toEqual([
      expect.objectContaining({ file: 'src/parse.js' }),
    ]);
  });

  it('tells the edits in code a real run never reached, which cannot change what it does', () => {
    const dir = mkdtempSync(join(tmpdir(), 'swesynth-blocks-'));
    try {
      const code = `export function price(amount, coupon) {
  if (coupon) {
    return amount - coupon.off;
  }
  return amount * 2;
}
price(10);
`;
      writeFileSync(join(dir, 'price.mjs'), code);
      execFileSync(process.execPath, ['price.mjs'], { cwd: dir, env: { ...process.env, NODE_V8_COVERAGE: join(dir, 'coverage') } });
      execFileSync(process.execPath, [reporterPath('coverage-summary.mjs'), 'coverage', dir, 'summary.json', 'blocks'], { cwd: dir });
      const blocks: Blocks = JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'))['price.mjs'].blocks;
      const reached = mutantsOf(parseSource('price.mjs', code), OPERATORS)
        .filter((mutant) => mayHaveRun(blocks, mutant.edit.start, mutant.edit.end))
        .map((mutant) => code.slice(mutant.edit.start, mutant.edit.end));
      const unreached = mutantsOf(parseSource('price.mjs', code), OPERATORS)
        .filter((mutant) => !mayHaveRun(blocks, mutant.edit.start, mutant.edit.end))
        .map((mutant) => code.slice(mutant.edit.start, mutant.edit.end));
      // The condition ran and the doubling ran, so removing the branch is tried; the coupon's subtraction never ran.
      expect(reached).toEqual(expect.arrayContaining(['*', 'coupon', ' amount * 2']));
      expect(reached.some((text) => text.trim().startsWith('if (coupon)'))).toBe(true);
      expect(unreached).toEqual(['-', 'amount - coupon.off', ' amount - coupon.off']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
