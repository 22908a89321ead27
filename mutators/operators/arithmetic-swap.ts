import type { Node } from '@babel/types';
import { replaceOperator, swapOperators } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

const SWAPPED: Record<string, string> = { '+': '-', '-': '+', '*': '/', '/': '*', '%': '*' };

/** `'a' + b` is concatenation: turning it into a subtraction only yields NaN, not a plausible bug. */
function isText(node: Node): boolean {
  return node.type === 'StringLiteral' || node.type === 'TemplateLiteral';
}

export const arithmeticSwap: Operator = {
  name: 'arithmetic-swap',
  family: 'arithmetic',
  description: 'Swaps an arithmetic operator (`+`/`-`, `*`/`/`, `%` to `*`), in expressions, compound assignments and `++`/`--`.',
  sites(unit, file) {
    const edits = [...swapOperators(unit, file, SWAPPED, (node) => !isText(node.left) && !isText(node.right))];
    for (const { node } of nodesOf(unit)) {
      if (node.type === 'AssignmentExpression') {
        const to = SWAPPED[node.operator.slice(0, -1)];
        if (node.operator.length === 2 && to && !isText(node.right)) edits.push(replaceOperator(file, node.left, node.right, node.operator, `${to}=`));
      } else if (node.type === 'UpdateExpression') {
        const start = node.prefix ? node.start! : node.argument.end!;
        const at = file.text.indexOf(node.operator, start);
        edits.push({ start: at, end: at + 2, replacement: node.operator === '++' ? '--' : '++' });
      }
    }
    return edits.sort((a, b) => a.start - b.start);
  },
};
