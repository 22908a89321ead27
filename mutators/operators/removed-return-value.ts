import type { Expression } from '@babel/types';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

/** `undefined` and `void 0` are what a bare `return` returns already. */
function isNothing(node: Expression): boolean {
  if (node.type === 'Identifier') return node.name === 'undefined';
  return node.type === 'UnaryExpression' && node.operator === 'void' && node.argument.type === 'NumericLiteral';
}

export const removedReturnValue: Operator = {
  name: 'removed-return-value',
  family: 'removal',
  description: 'Drops the value of a `return` statement: `return x;` becomes `return;`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'ReturnStatement' || !node.argument || isNothing(node.argument)) continue;
      // Everything after the keyword up to the semicolon, closing parentheses of the value included.
      const end = file.text[node.end! - 1] === ';' ? node.end! - 1 : node.end!;
      yield { start: node.start! + 'return'.length, end, replacement: '' };
    }
  },
};
