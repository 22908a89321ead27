import type { Node } from '@babel/types';
import type { Operator } from '../types.js';
import { outerRange, parentsOf } from '../syntax.js';

const FUNCTIONS = new Set([
  'FunctionDeclaration',
  'FunctionExpression',
  'ArrowFunctionExpression',
  'ObjectMethod',
  'ClassMethod',
  'ClassPrivateMethod',
]);

/** `return await x` and `async () => await x`: the caller awaits the returned promise anyway. */
function isReturned(node: Node, parent: Node | null | undefined): boolean {
  return parent?.type === 'ReturnStatement' || (parent?.type === 'ArrowFunctionExpression' && parent.body === node);
}

/** Inside a `try` block of its own function, where a rejection must be awaited to be caught. */
function isInTry(node: Node, parents: Map<Node, Node | null>): boolean {
  for (let child = node, parent = parents.get(node); parent; child = parent, parent = parents.get(parent)) {
    if (parent.type === 'TryStatement' && parent.block === child) return true;
    if (FUNCTIONS.has(parent.type)) return false;
  }
  return false;
}

export const removedAwait: Operator = {
  name: 'removed-await',
  family: 'async',
  description: 'Removes an `await`, so the code goes on with the promise instead of its value: `await load()` becomes `load()`.',
  *sites(unit, file) {
    const parents = parentsOf(unit);
    for (const [node, parent] of parents) {
      if (node.type !== 'AwaitExpression' || (isReturned(node, parent) && !isInTry(node, parents))) continue;
      const argument = outerRange(file, node.argument).start;
      // Without semicolons, a line starting with `(`, `[` or a template would join the line before.
      const lineStart = file.text.lastIndexOf('\n', node.start! - 1) + 1;
      if (/^\s*$/.test(file.text.slice(lineStart, node.start!)) && /[([`+\-/]/.test(file.text[argument]!)) continue;
      yield { start: node.start!, end: argument, replacement: '' };
    }
  },
};
