import type { Node, UpdateExpression } from '@babel/types';
import type { Edit, Operator, SourceFile } from '../types.js';
import { outerText, parentsOf } from '../syntax.js';

/** Whether the value of `node` is thrown away, as in `i++;` or `for (...; ...; i++, j--)`. */
function isDiscarded(node: Node, parents: Map<Node, Node | null>): boolean {
  const parent = parents.get(node);
  switch (parent?.type) {
    case 'ExpressionStatement':
      return true;
    case 'ForStatement':
      return parent.update === node;
    case 'UnaryExpression':
      return parent.operator === 'void';
    case 'SequenceExpression':
      return parent.expressions.at(-1) !== node || isDiscarded(parent, parents);
    default:
      return false;
  }
}

/** `text` spliced in at `start`, spaced so a `+` or `-` before it does not glue onto it (`a+ ++i`). */
function splice(file: SourceFile, start: number, end: number, text: string): Edit {
  const glues = /[+-]/.test(text[0]!) && file.text[start - 1] === text[0];
  return { start, end, replacement: glues ? ` ${text}` : text };
}

function operatorStart(file: SourceFile, node: UpdateExpression): number {
  return node.prefix ? node.start! : file.text.indexOf(node.operator, node.argument.end!);
}

export const updateSwap: Operator = {
  name: 'update-swap',
  family: 'arithmetic',
  description:
    'Turns an increment into a decrement and back (`i++` becomes `i--`), and, where its value is used, a postfix update into a prefix one and back (`i++` becomes `++i`).',
  *sites(unit, file) {
    const parents = parentsOf(unit);
    for (const node of parents.keys()) {
      if (node.type !== 'UpdateExpression') continue;
      const at = operatorStart(file, node);
      yield splice(file, at, at + 2, node.operator === '++' ? '--' : '++');
      if (isDiscarded(node, parents)) continue;
      const target = outerText(file, node.argument);
      yield splice(file, node.start!, node.end!, node.prefix ? `${target}${node.operator}` : `${node.operator}${target}`);
    }
  },
};
