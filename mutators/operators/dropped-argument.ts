import type { Node } from '@babel/types';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { isCallLike, isUndefined, outerRange } from '../syntax.js';

function isRequire(callee: Node): boolean {
  return callee.type === 'Identifier' && callee.name === 'require';
}

export const droppedArgument: Operator = {
  name: 'dropped-argument',
  family: 'call',
  description: 'Drops the last argument of a call or `new`: `f(a, b)` becomes `f(a)` and `g(x)` becomes `g()`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (!isCallLike(node) || isRequire(node.callee)) continue;
      const args = node.arguments;
      const last = args.at(-1);
      // A trailing spread may be empty, and an explicit `undefined` is what a missing argument is.
      if (!last || last.type === 'SpreadElement' || isUndefined(last)) continue;
      const end = outerRange(file, last).end;
      if (args.length > 1) {
        // From the end of the previous argument, so its comma goes too: `f(a, b)` → `f(a)`.
        yield { start: outerRange(file, args.at(-2)!).end, end, replacement: '' };
      } else {
        // Everything between the parentheses, a trailing comma included: `g(\n  x,\n)` → `g()`.
        const open = file.text.lastIndexOf('(', outerRange(file, last).start - 1);
        yield { start: open + 1, end: node.end! - 1, replacement: '' };
      }
    }
  },
};
