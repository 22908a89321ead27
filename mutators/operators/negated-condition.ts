import type { Node } from '@babel/types';
import { replaceNode, textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { hasSwappableBranches } from './swapped-if-else.js';

/** Expressions that need no parentheses after a `!`. */
const TIGHT = new Set([
  'Identifier',
  'MemberExpression',
  'OptionalMemberExpression',
  'CallExpression',
  'OptionalCallExpression',
  'ThisExpression',
]);

/**
 * The condition to negate. Negating an `if` whose branches swapped-if-else swaps, or a ternary, which
 * swapped-ternary swaps, would only repeat those operators' bugs (`!c ? a : b` is `c ? b : a`).
 */
function conditionOf(node: Node): Node | null | undefined {
  switch (node.type) {
    case 'IfStatement':
      return hasSwappableBranches(node) ? null : node.test;
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'ForStatement':
      return node.test;
    default:
      return null;
  }
}

export const negatedCondition: Operator = {
  name: 'negated-condition',
  family: 'control-flow',
  description:
    'Negates the condition of an `if` without `else` (or of an `else if` chain) or of a loop (an existing `!` is removed instead).',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      const test = conditionOf(node);
      if (!test) continue;
      if (test.type === 'UnaryExpression' && test.operator === '!') {
        const inner = textOf(file, test.argument);
        yield replaceNode(test, TIGHT.has(test.argument.type) || test.argument.type === 'UnaryExpression' ? inner : `(${inner})`);
      } else {
        const text = textOf(file, test);
        yield replaceNode(test, TIGHT.has(test.type) && !test.extra?.parenthesized ? `!${text}` : `!(${text})`);
      }
    }
  },
};
