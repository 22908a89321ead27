import { describe, expect, it } from 'vitest';
import { applyEdit } from '../../mutators/edits.js';
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
    expect(names).toEqual([
      'total',
      'double',
      'triple',
      'half',
      'Cart.add',
      'Cart.size',
      'Cart.#hidden',
      'Cart.onClick',
      'api.load',
      'api.save',
      'module.exports.helper',
    ]);
  });

  it("finds the function a module is: a default export that is not a declaration, and TypeScript's export =", () => {
    const unitsOf = (path: string, code: string) => discoverUnits(parseSource(path, code)).map((unit) => unit.name);
    expect(unitsOf('src/a.js', 'export default (a, b) => (a > b ? a : b);')).toEqual(['default']);
    expect(unitsOf('src/a.ts', 'export = function getCallerFile(position = 2) { return position > 1; };')).toEqual(['getCallerFile']);
  });

  it('finds a named function expression outside every unit by its own name: a module that picks its function as it loads', () => {
    const code = `
      module.exports = typeof WeakRef === 'undefined'
        ? function isWeakRef(_value) { return false; }
        : function isWeakRef(value) { return !!value && typeof value === 'object'; };
      var hasOwn = Object.hasOwn || function hasOwnProperty(o, k) { return Object.prototype.hasOwnProperty.call(o, k); };
      (function () { var helper = function named() { return 1; }; })();
      [1, 2].forEach(function each(n) { return n; });
    `;
    expect(discoverUnits(parseSource('index.js', code)).map((unit) => unit.name)).toEqual([
      'isWeakRef',
      'isWeakRef',
      'hasOwnProperty',
      'helper',
      'each',
    ]);
  });

  it('attributes the code of a nested unit to that unit only, and callbacks to their enclosing unit', () => {
    const code = 'function outer(a) { function inner(b) { return b < 1; } return [a].filter((x) => x > 0); }';
    const mutants = mutantsOf(
      parseSource('src/a.js', code),
      OPERATORS.filter((operator) => operator.name === 'comparison-boundary'),
    );
    expect(mutants.map((mutant) => [mutant.unit.name, mutant.original])).toEqual([
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
    const texts = mutants.map((mutant) => applyEdit('function f(a) { if (!a) { g(); } }', mutant.edit));
    expect(new Set(texts).size).toBe(texts.length);
    for (const text of texts) expect(() => parseSource('src/a.js', text)).not.toThrow();
  });

  it('tells getters and setters from methods, and gives every unit its lines and complexity', () => {
    const code = [
      'class Box {',
      '  get size() { return this.n; }',
      '  set size(value) { if (value < 0 || value > 9) throw new Error(); this.n = value; }',
      '  grow(by) {',
      '    for (const step of by) {',
      '      this.n += step > 0 ? step : 0;',
      '    }',
      '  }',
      '}',
      'const store = { get count() { return 1; } };',
    ].join('\n');
    const units = discoverUnits(parseSource('src/box.js', code)).map(({ name, kind, startLine, endLine, complexity }) => ({
      name,
      kind,
      startLine,
      endLine,
      complexity,
    }));
    expect(units).toEqual([
      { name: 'Box.size', kind: 'getter', startLine: 2, endLine: 2, complexity: 1 },
      // if, || → 3
      { name: 'Box.size', kind: 'setter', startLine: 3, endLine: 3, complexity: 3 },
      // for-of, ternary → 3
      { name: 'Box.grow', kind: 'method', startLine: 4, endLine: 8, complexity: 3 },
      { name: 'store.count', kind: 'getter', startLine: 10, endLine: 10, complexity: 1 },
    ]);
  });

  it('leaves type-only code alone: overloads, declare, interfaces, and literals in types', () => {
    const code = [
      'export function pick(a: 1 | 2): number;',
      'export function pick(a: number): number { return a > 1 ? 1 : 2; }',
      'declare function external(x: number): number;',
      'interface Shape { area(): number }',
      'abstract class Base { abstract run(n: 3): void; step(): 5 { const five = 5 as 5; return five; } }',
    ].join('\n');
    const source = parseSource('src/pick.ts', code);
    expect(discoverUnits(source).map((unit) => unit.name)).toEqual(['pick', 'Base.step']);
    const mutants = mutantsOf(source, OPERATORS);
    expect(mutants.length).toBeGreaterThan(0);
    // Only runtime code changes: never the overload's or the return type's literal, nor the cast's.
    for (const mutant of mutants) {
      expect([2, 5]).toContain(mutant.startLine);
      const mutated = applyEdit(code, mutant.edit);
      expect(mutated).toContain('pick(a: 1 | 2): number;');
      expect(mutated).toContain('step(): 5 {');
      expect(mutated).toContain('as 5;');
    }
  });

  it('skips units outside the complexity and length bounds', () => {
    const code = 'function tiny(a) { return a + 1; }\nfunction branchy(a) {\n  if (a) return a - 1;\n  return a > 2 ? a * 2 : 0;\n}\n';
    const source = parseSource('src/a.js', code);
    const units = (bounds: { minComplexity: number; maxLines: number }) =>
      [...new Set(mutantsOf(source, OPERATORS, { bounds }).map((mutant) => mutant.unit.name))].sort();
    expect(units({ minComplexity: 1, maxLines: 100 })).toEqual(['branchy', 'tiny']);
    expect(units({ minComplexity: 2, maxLines: 100 })).toEqual(['branchy']);
    expect(units({ minComplexity: 1, maxLines: 2 })).toEqual(['tiny']);
  });
});
