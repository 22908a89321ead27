import type { Node, NumericLiteral } from '@babel/types';
import { replaceNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

/** Larger numbers are masks, ids and magic values rather than counts. */
const LIMIT = 2 ** 31;

/** A literal naming a key or a type, not a value the code computes with. */
function isKeyOrType(literal: NumericLiteral, parent: Node | null | undefined): boolean {
  if (parent?.type === 'TSLiteralType') return true;
  return !!parent && 'key' in parent && parent.key === literal && !('computed' in parent && parent.computed);
}

/** Where only truthiness counts, `2` behaves like `1`: only a change to or from 0 matters there. */
function isTruthTest(literal: NumericLiteral, parent: Node | null | undefined): boolean {
  switch (parent?.type) {
    case 'IfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'ForStatement':
    case 'ConditionalExpression':
      return parent.test === literal;
    case 'UnaryExpression':
      return parent.operator === '!';
    default:
      return false;
  }
}

export const offByOneConstant: Operator = {
  name: 'off-by-one-constant',
  family: 'literal',
  description:
    'Moves an integer constant up and down by one (`n` becomes `n + 1` and `n - 1`, written in decimal), except 0, which only becomes 1.',
  *sites(unit) {
    for (const { node, parent } of nodesOf(unit)) {
      if (node.type !== 'NumericLiteral' || !Number.isInteger(node.value) || node.value >= LIMIT || isKeyOrType(node, parent)) continue;
      const shifted = node.value === 0 ? [1] : [node.value + 1, node.value - 1];
      for (const value of shifted) {
        if (isTruthTest(node, parent) && node.value !== 0 && value !== 0) continue;
        // `1..toFixed()`: a member access on an integer needs a dot to end the number.
        const onMember = parent?.type === 'MemberExpression' && parent.object === node && !parent.computed && !node.extra?.parenthesized;
        yield replaceNode(node, onMember ? `${value}.` : `${value}`);
      }
    }
  },
};
