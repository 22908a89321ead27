import type { Node } from '@babel/types';
import { swapOperators } from '../edits.js';
import type { Operator } from '../types.js';

const SWAPPED: Record<string, string> = { '+': '-', '-': '+', '*': '/', '/': '*', '%': '*' };

/** `'a' + b` is concatenation: turning it into a subtraction only yields NaN, not a plausible bug. */
function isText(node: Node): boolean {
  return node.type === 'StringLiteral' || node.type === 'TemplateLiteral';
}

export const arithmeticSwap: Operator = {
  name: 'arithmetic-swap',
  family: 'arithmetic',
  description: 'Swaps the arithmetic operator of a binary expression (`+`/`-`, `*`/`/`, `%` to `*`).',
  sites: (unit, file) => swapOperators(unit, file, SWAPPED, (node) => !isText(node.left) && !isText(node.right)),
};
