import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { OPERATORS, operatorsNamed } from '../../mutators/registry.js';
import { ROOT } from '../helpers.js';

describe('the operator catalogue', () => {
  it('has at least 20 operators with unique names, one file and one test file each', () => {
    expect(OPERATORS.length).toBeGreaterThanOrEqual(20);
    expect(new Set(OPERATORS.map((operator) => operator.name)).size).toBe(OPERATORS.length);
    for (const { name } of OPERATORS) {
      expect(existsSync(join(ROOT, 'mutators', 'operators', `${name}.ts`)), name).toBe(true);
      expect(existsSync(join(ROOT, 'test', 'mutators', `${name}.test.ts`)), name).toBe(true);
    }
  });

  it('describes every operator in one sentence', () => {
    for (const { name, description } of OPERATORS) {
      expect(description, name).toMatch(/^[A-Z`].*[.)]$/);
      expect(description.split(/\.\s+[A-Z]/).length, `${name}: ${description}`).toBe(1);
    }
  });

  it('selects operators by name and refuses unknown names', () => {
    expect(operatorsNamed(['logical-flip', 'removed-await']).map((operator) => operator.name)).toEqual(['logical-flip', 'removed-await']);
    expect(() => operatorsNamed(['no-such-operator'])).toThrow(/unknown operator "no-such-operator"/);
  });
});
