import { removeNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isExit, lastStatementOf, soleBodyStatements } from '../statements.js';

export const removedIfBlock: Operator = {
  name: 'removed-if-block',
  family: 'removal',
  description:
    'Removes an `if` without `else` whose body does not end in a return, throw, break or continue, so the case it handles is ignored.',
  *sites(unit, file) {
    const sole = soleBodyStatements(unit);
    for (const { node, parent } of nodesOf(unit)) {
      // Only inside braces: an `if` that is the body of another statement cannot just vanish.
      if (node.type !== 'IfStatement' || node.alternate || parent?.type !== 'BlockStatement' || sole.has(node)) continue;
      const last = lastStatementOf(node.consequent);
      // An empty body does nothing to remove; one that exits is a guard, removed-early-return's.
      if (last && last.type !== 'EmptyStatement' && !isExit(last)) yield removeNode(file, node);
    }
  },
};
