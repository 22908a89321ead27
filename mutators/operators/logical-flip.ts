import { replaceOperator } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

const FLIPPED: Record<string, string> = { '&&': '||', '||': '&&' };

export const logicalFlip: Operator = {
  name: 'logical-flip',
  family: 'logic',
  description: 'Swaps a logical connective: `&&` becomes `||` and back.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'LogicalExpression') continue;
      const to = FLIPPED[node.operator];
      if (to) yield replaceOperator(file, node.left, node.right, node.operator, to);
    }
  },
};
