import { removeNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isLoop, soleBodyStatements } from '../statements.js';

export const removedLoop: Operator = {
  name: 'removed-loop',
  family: 'removal',
  description: 'Removes a `for`, `for…in`, `for…of`, `while` or `do…while` loop from a block.',
  *sites(unit, file) {
    const sole = soleBodyStatements(unit);
    for (const { node, parent } of nodesOf(unit)) {
      // Only inside braces: a loop that is the body of another statement cannot just vanish.
      if (isLoop(node) && parent?.type === 'BlockStatement' && !sole.has(node)) yield removeNode(file, node);
    }
  },
};
