import type { Node, NumericLiteral } from '@babel/types';
import { replaceNode } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Operator, SourceFile } from '../types.js';

/** A number becomes 0, except 0 and ±1, which off-by-one-constant moves to 1 and 0 (or -0) already. */
function zeroed(literal: NumericLiteral): string | null {
  return literal.value === 0 || literal.value === 1 ? null : '0';
}

/** What a returned literal becomes, or null for literals with no telling change (`null`, `''`, `[]`, `{}`, `0`). */
function changedLiteral(file: SourceFile, node: Node): string | null {
  switch (node.type) {
    case 'BooleanLiteral':
      return String(!node.value);
    case 'NumericLiteral':
      return zeroed(node);
    case 'UnaryExpression':
      return node.operator === '-' && node.argument.type === 'NumericLiteral' ? zeroed(node.argument) : null;
    case 'StringLiteral':
      // Same quotes as the original, so the code style stays.
      return node.value === '' ? null : file.text[node.start!]!.repeat(2);
    case 'ArrayExpression':
      return node.elements.length > 0 ? '[]' : null;
    case 'ObjectExpression':
      return node.properties.length > 0 ? '{}' : null;
    default:
      return null;
  }
}

/** The value a `return` statement or a concise arrow body returns. */
function returnedValue(node: Node): Node | null | undefined {
  if (node.type === 'ReturnStatement') return node.argument;
  if (node.type === 'ArrowFunctionExpression' && node.body.type !== 'BlockStatement') return node.body;
  return null;
}

export const changedReturnValue: Operator = {
  name: 'changed-return-value',
  family: 'literal',
  description:
    "Changes a returned literal: `true` ↔ `false`, a number other than 0 and ±1 to `0`, a string to `''`, an array or object to an empty one.",
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      const value = returnedValue(node);
      const replacement = value && changedLiteral(file, value);
      if (replacement) yield replaceNode(value, replacement);
    }
  },
};
