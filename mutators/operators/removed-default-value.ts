import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isUndefined } from '../syntax.js';

export const removedDefaultValue: Operator = {
  name: 'removed-default-value',
  family: 'removal',
  description: 'Removes the default value of a parameter or destructured binding: `function f(a, b = 1)` becomes `function f(a, b)`.',
  *sites(unit) {
    for (const { node } of nodesOf(unit)) {
      // The left side's range covers a TypeScript annotation, so `b: number = 1` keeps `b: number`;
      // a shorthand `{ x = 2 }` keeps `{ x }`. Defaulting to undefined is no default at all.
      if (node.type === 'AssignmentPattern' && !isUndefined(node.right)) yield { start: node.left.end!, end: node.end!, replacement: '' };
    }
  },
};
