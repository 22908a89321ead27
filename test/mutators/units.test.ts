import { describe, expect, it } from 'vitest';
import { mutantsOf } from '../../mutators/generate.js';
import { parseSource } from '../../mutators/parse.js';
import { OPERATORS } from '../../mutators/registry.js';
import { discoverUnits } from '../../mutators/units.js';

describe('unit discovery', () => {
  it('finds declarations, methods, and functions assigned to const, let, fields and exports', () => {
    const code = `
      export function total(items) { return items.length; }
      const double = (n) => n * 2;
      let triple = function (n) { return n * 3; };
      var half = function halve(n) { return n / 2; };
      class Cart { add(item) { this.items.push(item); } get size() { return 0; } static #hidden() {} onClick = () => 1; }
      const api = { load() { return 1; }, save: (x) => x };
      module.exports.helper = function () {};
      [1, 2].map((n) => n + 1);
    `;
    const names = discoverUnits(parseSource('src/a.ts', code)).map((unit) => unit.name);
    expect(names).toEqual(['total', 'double', 'triple', 'half', 'Cart.add', 'Cart.size', 'Cart.#hidden', 'Cart.onClick', 'api.load', 'api.save', 'module.exports.helper']);
  });

  it('attributes the code of a nested unit to that unit only, and callbacks to their enclosing unit', () => {
    const code = 'function outer(a) { function inner(b) { return b < 1; } return [a].filter((x) => x > 0); }';
    const mutants = mutantsOf(parseSource('src/a.js', code), OPERATORS.filter((operator) => operator.name === 'comparison-boundary'));
    expect(mutants.map((mutant) => [mutant.unit, mutant.original])).toEqual([
      ['outer', '>'],
      ['inner', '<'],
    ]);
  });

  it('parses TSX with generics and JSX', () => {
    const code = 'export const View = <T,>(props: { items: T[] }) => props.items.length > 0 ? <ul /> : null;';
    expect(discoverUnits(parseSource('src/view.tsx', code)).map((unit) => unit.name)).toEqual(['View']);
  });

  it('drops mutants that would not parse and duplicates between operators', () => {
    const mutants = mutantsOf(parseSource('src/a.js', 'function f(a) { if (!a) { g(); } }'), OPERATORS);
    const texts = mutants.map((mutant) => mutant.mutatedText);
    expect(new Set(texts).size).toBe(texts.length);
    for (const text of texts) expect(() => parseSource('src/a.js', text)).not.toThrow();
  });
});
