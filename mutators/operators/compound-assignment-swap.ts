import type { Node } from '@babel/types';
import { replaceOperator } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { literalValue } from '../syntax.js';

const SWAPPED: Record<string, string> = { '+=': '-=', '-=': '+=', '*=': '/=', '/=': '*=' };

/** Compound assignments that lose their operator, `x += 1` becoming `x = 1`; not `||=` and friends. */
const ARITHMETIC = new Set(['+=', '-=', '*=', '/=', '%=', '**=', '<<=', '>>=', '>>>=', '&=', '|=', '^=']);

/** `s += 'x'` is concatenation: `-=` on it only yields NaN, not a plausible bug. */
function isText(node: Node): boolean {
  return node.type === 'StringLiteral' || node.type === 'TemplateLiteral';
}

/** Adding 0 and multiplying by 1 are undone the same way they are done: the swap changes nothing. */
function isIdentity(operator: string, right: Node): boolean {
  const value = literalValue(right)?.value;
  return operator === '+=' || operator === '-=' ? value === 0 : value === 1;
}

export const compoundAssignmentSwap: Operator = {
  name: 'compound-assignment-swap',
  family: 'arithmetic',
  description: 'Swaps a compound assignment (`+=`/`-=`, `*=`/`/=`) or drops its operator (`x += 1` becomes `x = 1`).',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'AssignmentExpression' || !ARITHMETIC.has(node.operator)) continue;
      const { left, right, operator } = node;
      const to = SWAPPED[operator];
      if (to && !isText(right) && !isIdentity(operator, right)) yield replaceOperator(file, left, right, operator, to);
      yield replaceOperator(file, left, right, operator, '=');
    }
  },
};
