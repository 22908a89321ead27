import type { BinaryExpression, LogicalExpression, Node } from '@babel/types';
import { nodesOf } from './units.js';
import type { Edit, SourceFile, Unit } from './types.js';

export function textOf(file: SourceFile, node: Node): string {
  return file.text.slice(node.start!, node.end!);
}

export function replaceNode(node: Node, replacement: string): Edit {
  return { start: node.start!, end: node.end!, replacement };
}

/**
 * The offset of the operator token `op` between two operands. Only whitespace, comments and
 * the parentheses of parenthesized operands can stand between an operand and the operator.
 */
export function operatorOffset(file: SourceFile, left: Node, right: Node, op: string): number {
  const { text } = file;
  let i = left.end!;
  const stop = right.start!;
  while (i < stop) {
    if (text.startsWith('//', i)) i = text.indexOf('\n', i) + 1 || stop;
    else if (text.startsWith('/*', i)) i = text.indexOf('*/', i + 2) + 2;
    else if (text.startsWith(op, i)) return i;
    else i++;
  }
  throw new Error(`operator ${op} not found in ${file.path} at ${left.end}`);
}

/** An edit that swaps the binary operator between `left` and `right` for `to`. */
export function replaceOperator(file: SourceFile, left: Node, right: Node, from: string, to: string): Edit {
  const start = operatorOffset(file, left, right, from);
  return { start, end: start + from.length, replacement: to };
}

/** Applies one edit to a text. */
export function applyEdit(text: string, edit: Edit): string {
  return text.slice(0, edit.start) + edit.replacement + text.slice(edit.end);
}

/** 1-based line of an offset. */
export function lineAt(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

/**
 * One edit per binary or logical expression of the unit whose operator is in `table`, swapping it
 * for the operator the table gives; `accept` can pass over expressions where the swap is pointless.
 */
export function* swapOperators(
  unit: Unit,
  file: SourceFile,
  table: Readonly<Record<string, string>>,
  accept: (node: BinaryExpression | LogicalExpression) => boolean = () => true,
): Generator<Edit> {
  for (const { node } of nodesOf(unit)) {
    if (node.type !== 'BinaryExpression' && node.type !== 'LogicalExpression') continue;
    const to = table[node.operator];
    if (to && node.left.type !== 'PrivateName' && accept(node)) yield replaceOperator(file, node.left, node.right, node.operator, to);
  }
}
