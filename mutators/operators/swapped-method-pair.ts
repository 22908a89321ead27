import type { Node } from '@babel/types';
import { replaceNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator } from '../types.js';
import { methodCallOf } from '../syntax.js';

function twins(pairs: Array<[string, string]>): Map<string, string> {
  return new Map(
    pairs.flatMap(([a, b]) => [
      [a, b],
      [b, a],
    ]),
  );
}

/** Methods that strings, arrays, maps and `Object` pair up the same way. */
const TWINS = twins([
  ['startsWith', 'endsWith'],
  ['some', 'every'],
  ['toUpperCase', 'toLowerCase'],
  ['push', 'unshift'],
  ['pop', 'shift'],
  ['indexOf', 'lastIndexOf'],
  ['trimStart', 'trimEnd'],
  ['padStart', 'padEnd'],
  ['find', 'findLast'],
  ['findIndex', 'findLastIndex'],
  ['reduce', 'reduceRight'],
  ['keys', 'values'],
]);

/** Names too common to swap on any receiver: only on `Math`. */
const MATH_TWINS = twins([
  ['min', 'max'],
  ['floor', 'ceil'],
]);

function isMath(node: Node): boolean {
  return node.type === 'Identifier' && node.name === 'Math';
}

/** `Math.min(x)` is `Math.max(x)`: they differ only given two values or a spread. */
function isSingleValue(args: readonly Node[]): boolean {
  return args.length < 2 && args.every((argument) => argument.type !== 'SpreadElement');
}

export const swappedMethodPair: Operator = {
  name: 'swapped-method-pair',
  family: 'call',
  description:
    'Calls the twin of a method: `startsWith` becomes `endsWith`, `some` becomes `every`, `Math.min` becomes `Math.max`, `push` becomes `unshift`, and so on.',
  *sites(unit) {
    for (const { node } of nodesOf(unit)) {
      const found = methodCallOf(node);
      if (!found) continue;
      const { call, receiver, method } = found;
      const twin = TWINS.get(method.name) ?? (isMath(receiver) ? MATH_TWINS.get(method.name) : undefined);
      if (!twin || ((method.name === 'min' || method.name === 'max') && isSingleValue(call.arguments))) continue;
      yield replaceNode(method, twin);
    }
  },
};
