import type { BinaryExpression, Node } from '@babel/types';
import { textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { literalValue, swapTexts } from '../syntax.js';

/** Binding strength of the binary operators whose operand order matters, and of their neighbours. */
const PRECEDENCE: Record<string, number> = {
  '**': 13,
  '*': 12,
  '/': 12,
  '%': 12,
  '+': 11,
  '-': 11,
  '<<': 10,
  '>>': 10,
  '>>>': 10,
  '<': 9,
  '<=': 9,
  '>': 9,
  '>=': 9,
  instanceof: 9,
  in: 9,
  '==': 8,
  '!=': 8,
  '===': 8,
  '!==': 8,
  '&': 7,
  '^': 6,
  '|': 5,
  '&&': 4,
  '||': 3,
  '??': 3,
};

const NON_COMMUTATIVE = new Set(['-', '/', '%', '**', '<<', '>>', '>>>', '<', '<=', '>', '>=']);

function precedenceOf(node: Node): number {
  if (node.type === 'BinaryExpression' || node.type === 'LogicalExpression') return PRECEDENCE[node.operator]!;
  // `x as T` binds like a relational operator.
  if (node.type === 'TSAsExpression' || node.type === 'TSSatisfiesExpression') return PRECEDENCE['<']!;
  return Infinity;
}

/**
 * Whether an operand moved to the other side of `node` needs parentheses there: `a - b - c` is
 * `(a - b) - c`, so swapped it is `c - (a - b)`; and `**` is right-associative and takes no
 * unary left operand (`(-b) ** a`).
 */
function needsParens(node: BinaryExpression, moved: Node, toLeft: boolean): boolean {
  if (moved.extra?.parenthesized) return false;
  const own = PRECEDENCE[node.operator]!;
  const theirs = precedenceOf(moved);
  if (node.operator === '**' && toLeft) return theirs <= own || moved.type === 'UnaryExpression' || moved.type === 'AwaitExpression';
  return toLeft ? theirs < own : theirs <= own;
}

export const swappedOperands: Operator = {
  name: 'swapped-operands',
  family: 'arithmetic',
  description:
    'Swaps the operands of a subtraction, division, remainder, power, shift or comparison: `a - b` becomes `b - a`, `a < b` becomes `b < a`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'BinaryExpression' || !NON_COMMUTATIVE.has(node.operator) || node.left.type === 'PrivateName') continue;
      const { left, right } = node;
      if (textOf(file, left) === textOf(file, right) || (literalValue(left) && literalValue(right))) continue;
      yield swapTexts(file, left, right, (moved, text) => (needsParens(node, moved, moved === right) ? `(${text})` : text));
    }
  },
};
