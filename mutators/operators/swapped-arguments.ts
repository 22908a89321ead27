import type { Node } from '@babel/types';
import { textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator, SourceFile } from '../types.js';
import { isCallLike, literalValue, methodCallOf, swapTexts } from '../syntax.js';

/** Functions whose result does not depend on the order of their arguments. */
// A Map, not an object literal: a receiver named `constructor` or `toString` must find nothing.
const SYMMETRIC: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ['Math', new Set(['max', 'min', 'hypot', 'imul'])],
  ['Object', new Set(['is'])],
]);

function isSymmetric(node: Node): boolean {
  const found = methodCallOf(node);
  return !!found && found.receiver.type === 'Identifier' && !!SYMMETRIC.get(found.receiver.name)?.has(found.method.name);
}

/** Swapping equal texts or equal literals (`1` and `1.0`) changes nothing. */
function same(file: SourceFile, a: Node, b: Node): boolean {
  const valueA = literalValue(a);
  const valueB = literalValue(b);
  return textOf(file, a) === textOf(file, b) || (!!valueA && !!valueB && Object.is(valueA.value, valueB.value));
}

export const swappedArguments: Operator = {
  name: 'swapped-arguments',
  family: 'call',
  description: 'Swaps two neighbouring arguments of a call or `new`: `f(a, b)` becomes `f(b, a)`.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (!isCallLike(node) || isSymmetric(node)) continue;
      const args = node.arguments;
      for (let i = 0; i + 1 < args.length; i++) {
        const [first, second] = [args[i]!, args[i + 1]!];
        if (first.type === 'SpreadElement' || second.type === 'SpreadElement' || same(file, first, second)) continue;
        yield swapTexts(file, first, second);
      }
    }
  },
};
