import { replaceOperator } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

const FLIPPED: Record<string, string> = { '===': '!==', '!==': '===', '==': '!=', '!=': '==' };

export const equalityFlip: Operator = {
  name: 'equality-flip',
  family: 'logic',
  description: 'Inverts an equality test: `===` becomes `!==` and back (likewise `==` and `!=`).',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'BinaryExpression') continue;
      const to = FLIPPED[node.operator];
      if (to) yield replaceOperator(file, node.left, node.right, node.operator, to);
    }
  },
};
