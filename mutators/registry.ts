import { arithmeticSwap } from './operators/arithmetic-swap.js';
import { comparisonBoundary } from './operators/comparison-boundary.js';
import { equalityFlip } from './operators/equality-flip.js';
import { logicalFlip } from './operators/logical-flip.js';
import { negatedCondition } from './operators/negated-condition.js';
import { removedStatement } from './operators/removed-statement.js';
import type { Operator } from './types.js';

/** Every operator swesynth knows, in the order candidates are generated. */
export const OPERATORS: readonly Operator[] = [
  comparisonBoundary,
  equalityFlip,
  logicalFlip,
  arithmeticSwap,
  negatedCondition,
  removedStatement,
];

export function operatorsNamed(names: readonly string[] | undefined): Operator[] {
  if (!names || names.length === 0) return [...OPERATORS];
  return names.map((name) => {
    const operator = OPERATORS.find((candidate) => candidate.name === name);
    if (!operator) {
      throw new Error(`unknown operator "${name}"; known operators: ${OPERATORS.map((o) => o.name).join(', ')}`);
    }
    return operator;
  });
}
