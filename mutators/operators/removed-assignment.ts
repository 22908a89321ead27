import type { Node } from '@babel/types';
import { removeNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { soleBodyStatements } from '../statements.js';

/** `x = y;`, `x += y;` or `i++;` as a statement of its own (removed-statement removes the others). */
export function isAssignmentStatement(node: Node): boolean {
  return (
    node.type === 'ExpressionStatement' && (node.expression.type === 'AssignmentExpression' || node.expression.type === 'UpdateExpression')
  );
}

export const removedAssignment: Operator = {
  name: 'removed-assignment',
  family: 'removal',
  description: 'Removes an assignment or increment statement (`x = y;`, `total += n;`, `i++;`) from a block.',
  *sites(unit, file) {
    const sole = soleBodyStatements(unit);
    for (const { node, parent } of nodesOf(unit)) {
      // Only inside braces: removing the body of `if (x) y = 1;` would make the next statement its body.
      if (isAssignmentStatement(node) && parent?.type === 'BlockStatement' && !sole.has(node)) yield removeNode(file, node);
    }
  },
};
