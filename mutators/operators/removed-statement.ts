import type { Node } from '@babel/types';
import { nodesOf } from '../units.js';
import type { Edit, Operator, SourceFile } from '../types.js';

/** Deletes the statement's whole lines when it stands alone on them, so the diff stays clean. */
function deletion(file: SourceFile, node: Node): Edit {
  const { text } = file;
  const lineStart = text.lastIndexOf('\n', node.start! - 1) + 1;
  const lineEnd = text.indexOf('\n', node.end!);
  const before = text.slice(lineStart, node.start!);
  const after = text.slice(node.end!, lineEnd === -1 ? text.length : lineEnd);
  if (/^\s*$/.test(before) && /^\s*$/.test(after)) {
    return { start: lineStart, end: lineEnd === -1 ? text.length : lineEnd + 1, replacement: '' };
  }
  return { start: node.start!, end: node.end!, replacement: '' };
}

export const removedStatement: Operator = {
  name: 'removed-statement',
  family: 'removal',
  description: 'Removes an expression statement (a call, an assignment, an increment) from a block.',
  *sites(unit, file) {
    for (const { node, parent } of nodesOf(unit)) {
      // Only inside braces: removing the body of `if (x) y();` would make the next statement its body.
      if (node.type === 'ExpressionStatement' && parent?.type === 'BlockStatement') yield deletion(file, node);
    }
  },
};
