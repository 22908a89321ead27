import { removeNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isAssignmentStatement } from './removed-assignment.js';
import { soleBodyStatements } from '../statements.js';

export const removedStatement: Operator = {
  name: 'removed-statement',
  family: 'removal',
  description: 'Removes an expression statement that is not an assignment (a call, an `await`, a `delete`) from a block.',
  *sites(unit, file) {
    const sole = soleBodyStatements(unit);
    for (const { node, parent } of nodesOf(unit)) {
      // Only inside braces: removing the body of `if (x) y();` would make the next statement its body.
      if (node.type !== 'ExpressionStatement' || parent?.type !== 'BlockStatement') continue;
      if (!isAssignmentStatement(node) && !sole.has(node)) yield removeNode(file, node);
    }
  },
};
