import type { Node } from '@babel/types';
import { replaceNode, textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Edit, Operator, SourceFile } from '../types.js';
import { isUndefined, methodCallOf } from '../syntax.js';

const SLICING = new Set(['slice', 'substring', 'substr', 'splice']);

/** Expressions that `+ 1` can follow without parentheses. */
const TIGHT = new Set([
  'Identifier',
  'MemberExpression',
  'OptionalMemberExpression',
  'CallExpression',
  'OptionalCallExpression',
  'ThisExpression',
]);

/** The value of `3` or `-1`, the literal bounds the operator computes with instead of writing `3 + 1`. */
function numberOf(node: Node): number | undefined {
  if (node.type === 'NumericLiteral') return node.value;
  if (node.type === 'UnaryExpression' && node.operator === '-' && node.argument.type === 'NumericLiteral') return -node.argument.value;
  return undefined;
}

/**
 * `bound` moved by `delta`. A negative bound counts from the end, so a literal never changes
 * sign: `slice(-1)` becomes `slice(-2)`, not `slice(0)`, and `slice(0, 0)` becomes `slice(0, 1)`.
 */
function shifted(file: SourceFile, method: string, bound: Node, delta: number): Edit | null {
  if (isUndefined(bound) || (bound.type === 'Identifier' && bound.name === 'Infinity')) return null;
  const value = numberOf(bound);
  if (value === undefined) {
    const text = TIGHT.has(bound.type) ? textOf(file, bound) : `(${textOf(file, bound)})`;
    return replaceNode(bound, `${text} ${delta > 0 ? '+' : '-'} 1`);
  }
  // `substring` reads every negative bound as 0, so moving one changes nothing.
  if (value < 0 && method === 'substring') return null;
  const moved = value < 0 === value + delta < 0 ? value + delta : value - delta;
  return replaceNode(bound, String(moved));
}

export const shiftedSliceBound: Operator = {
  name: 'shifted-slice-bound',
  family: 'boundary',
  description: 'Shifts a bound of `slice`, `substring`, `substr` or `splice` by one: the start moves up one, the end (or count) down one.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      const found = methodCallOf(node);
      if (!found || !SLICING.has(found.method.name)) continue;
      // Past a spread the positions are unknown; only the start and the end/count are bounds.
      const args = found.call.arguments;
      const spread = args.findIndex((argument) => argument.type === 'SpreadElement');
      const bounds = args.slice(0, Math.min(2, spread === -1 ? 2 : spread));
      for (const [index, bound] of bounds.entries()) {
        const edit = shifted(file, found.method.name, bound, index === 0 ? 1 : -1);
        if (edit) yield edit;
      }
    }
  },
};
