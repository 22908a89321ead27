import { removeNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { lastStatementOf } from '../statements.js';

export const removedEarlyReturn: Operator = {
  name: 'removed-early-return',
  family: 'control-flow',
  description: 'Removes a guard clause: an `if` without `else` that returns or throws before the rest of its block.',
  *sites(unit, file) {
    for (const { node, parent } of nodesOf(unit)) {
      if (node.type !== 'IfStatement' || node.alternate || parent?.type !== 'BlockStatement') continue;
      // A guard at the end of its block guards nothing: removing it changes little or nothing.
      if (parent.body.at(-1) === node) continue;
      const last = lastStatementOf(node.consequent);
      if (last?.type === 'ReturnStatement' || last?.type === 'ThrowStatement') yield removeNode(file, node);
    }
  },
};
