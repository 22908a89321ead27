import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

export const removedElseBranch: Operator = {
  name: 'removed-else-branch',
  family: 'removal',
  description: 'Removes the `else` of an `if` (with any `else if` chain after it), so the other cases do nothing.',
  *sites(unit) {
    for (const { node, parent } of nodesOf(unit)) {
      if (node.type !== 'IfStatement' || !node.alternate) continue;
      const { alternate } = node;
      // Removing an `else` that does nothing changes nothing.
      if (alternate.type === 'EmptyStatement' || (alternate.type === 'BlockStatement' && alternate.body.length === 0)) continue;
      // In `if (a) if (b) x; else y; else z;` the outer `else` would pass to the inner `if`.
      if (parent?.type === 'IfStatement' && parent.consequent === node && parent.alternate) continue;
      yield { start: node.consequent.end!, end: alternate.end!, replacement: '' };
    }
  },
};
