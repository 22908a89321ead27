import { arithmeticSwap } from './operators/arithmetic-swap.js';
import { breakContinueSwap } from './operators/break-continue-swap.js';
import { changedReturnValue } from './operators/changed-return-value.js';
import { comparisonBoundary } from './operators/comparison-boundary.js';
import { compoundAssignmentSwap } from './operators/compound-assignment-swap.js';
import { droppedArgument } from './operators/dropped-argument.js';
import { equalityFlip } from './operators/equality-flip.js';
import { logicalFlip } from './operators/logical-flip.js';
import { negatedCondition } from './operators/negated-condition.js';
import { nullishSwap } from './operators/nullish-swap.js';
import { offByOneConstant } from './operators/off-by-one-constant.js';
import { removedAssignment } from './operators/removed-assignment.js';
import { removedAwait } from './operators/removed-await.js';
import { removedCatchHandling } from './operators/removed-catch-handling.js';
import { removedDefaultValue } from './operators/removed-default-value.js';
import { removedEarlyReturn } from './operators/removed-early-return.js';
import { removedElseBranch } from './operators/removed-else-branch.js';
import { removedIfBlock } from './operators/removed-if-block.js';
import { removedLoop } from './operators/removed-loop.js';
import { removedOptionalChaining } from './operators/removed-optional-chaining.js';
import { removedReturnValue } from './operators/removed-return-value.js';
import { removedStatement } from './operators/removed-statement.js';
import { shiftedSliceBound } from './operators/shifted-slice-bound.js';
import { shuffledStatements } from './operators/shuffled-statements.js';
import { swappedArguments } from './operators/swapped-arguments.js';
import { swappedIfElse } from './operators/swapped-if-else.js';
import { swappedMethodPair } from './operators/swapped-method-pair.js';
import { swappedOperands } from './operators/swapped-operands.js';
import { swappedTernary } from './operators/swapped-ternary.js';
import { updateSwap } from './operators/update-swap.js';
import type { Operator } from './types.js';

/**
 * Every operator swesynth knows, in the order candidates are generated. When two operators make
 * the same text, the mutant goes to the first, so the narrower operator of a pair comes first.
 */
export const OPERATORS: readonly Operator[] = [
  comparisonBoundary,
  shiftedSliceBound,
  offByOneConstant,
  equalityFlip,
  logicalFlip,
  nullishSwap,
  arithmeticSwap,
  swappedOperands,
  updateSwap,
  compoundAssignmentSwap,
  negatedCondition,
  swappedIfElse,
  swappedTernary,
  removedEarlyReturn,
  removedIfBlock,
  removedElseBranch,
  removedLoop,
  removedStatement,
  removedAssignment,
  removedReturnValue,
  changedReturnValue,
  removedOptionalChaining,
  removedDefaultValue,
  swappedMethodPair,
  swappedArguments,
  droppedArgument,
  shuffledStatements,
  removedCatchHandling,
  breakContinueSwap,
  removedAwait,
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
