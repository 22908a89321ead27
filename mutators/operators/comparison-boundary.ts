import { replaceOperator } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

const BOUNDARY: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>' };

export const comparisonBoundary: Operator = {
  name: 'comparison-boundary',
  family: 'boundary',
  description: 'Moves a comparison boundary by one: `<` becomes `<=`, `>=` becomes `>`, and so on (off-by-one bugs).',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'BinaryExpression') continue;
      const to = BOUNDARY[node.operator];
      if (to) yield replaceOperator(file, node.left, node.right, node.operator, to);
    }
  },
};
