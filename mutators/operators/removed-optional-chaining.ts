import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';

/** Receivers that are never null or undefined, where `?.` guards nothing. */
const NEVER_NULLISH = new Set([
  'ObjectExpression',
  'ArrayExpression',
  'NewExpression',
  'StringLiteral',
  'TemplateLiteral',
  'NumericLiteral',
]);

export const removedOptionalChaining: Operator = {
  name: 'removed-optional-chaining',
  family: 'removal',
  description: 'Removes the null guard of an optional chain: `a?.b` becomes `a.b`, `a?.[i]` becomes `a[i]` and `f?.()` becomes `f()`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'OptionalMemberExpression' && node.type !== 'OptionalCallExpression') continue;
      const receiver = node.type === 'OptionalMemberExpression' ? node.object : node.callee;
      if (!node.optional || NEVER_NULLISH.has(receiver.type)) continue;
      // Only parentheses, whitespace, comments or a TypeScript `!` stand between the receiver and `?.`.
      const at = file.text.indexOf('?.', receiver.end!);
      const keepsDot = node.type === 'OptionalMemberExpression' && !node.computed;
      yield { start: at, end: at + 2, replacement: keepsDot ? '.' : '' };
    }
  },
};
