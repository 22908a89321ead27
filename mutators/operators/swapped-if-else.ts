import type { IfStatement } from '@babel/types';
import { textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

/**
 * Branches that can move into the `then` position as they are. An unbraced loop or label there could
 * end in an `if` without `else` that would capture the `else`; an `else if` chain has no single
 * branch to swap.
 */
const MOVABLE = new Set([
  'BlockStatement',
  'ExpressionStatement',
  'ReturnStatement',
  'ThrowStatement',
  'BreakStatement',
  'ContinueStatement',
]);

/** True when swapped-if-else swaps the branches of `node` (negated-condition leaves such an `if` to it). */
export function hasSwappableBranches(node: IfStatement): boolean {
  return !!node.alternate && MOVABLE.has(node.alternate.type);
}

export const swappedIfElse: Operator = {
  name: 'swapped-if-else',
  family: 'control-flow',
  description: 'Swaps the two branches of an `if`/`else`, so each case runs the code of the other.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'IfStatement' || !hasSwappableBranches(node)) continue;
      const { consequent, alternate } = node;
      // Identical branches swap into the same text, which mutantsOf drops.
      const between = file.text.slice(consequent.end!, alternate!.start!);
      yield { start: consequent.start!, end: alternate!.end!, replacement: textOf(file, alternate!) + between + textOf(file, consequent) };
    }
  },
};
