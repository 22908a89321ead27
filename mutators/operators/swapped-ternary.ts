import { textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { swapTexts } from '../syntax.js';

export const swappedTernary: Operator = {
  name: 'swapped-ternary',
  family: 'control-flow',
  description: 'Swaps the branches of a conditional expression: `c ? a : b` becomes `c ? b : a`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type === 'ConditionalExpression' && textOf(file, node.consequent) !== textOf(file, node.alternate)) {
        yield swapTexts(file, node.consequent, node.alternate);
      }
    }
  },
};
