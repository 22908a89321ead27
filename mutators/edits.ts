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

/** Deletes a statement, and its whole lines when it stands alone on them, so the diff stays clean. */
export function removeNode(file: SourceFile, node: Node): Edit {
  const { text } = file;
  const lineStart = text.lastIndexOf('\n', node.start! - 1) + 1;
  const lineEnd = text.indexOf('\n', node.end!);
  const before = text.slice(lineStart, node.start!);
  const after = text.slice(node.end!, lineEnd === -1 ? text.length : lineEnd);
  if (/^\s*$/.test(before) && /^\s*$/.test(after)) {
    return { start: lineStart, end: lineEnd === -1 ? text.length : lineEnd + 1, replacement: '' };
  }
  return replaceNode(node, '');
}

/** Applies one edit to a text. */
export function applyEdit(text: string, edit: Edit): string {
  return text.slice(0, edit.start) + edit.replacement + text.slice(edit.end);
}

/** True when no two edits touch the same text (edits that only meet at a point do not overlap). */
export function disjoint(edits: readonly Edit[]): boolean {
  const sorted = [...edits].sort((a, b) => a.start - b.start);
  return sorted.every((edit, i) => i === 0 || (sorted[i - 1]!.end <= edit.start && sorted[i - 1]!.start !== edit.start));
}

/** Applies disjoint edits to a text, each at its offset in the original. */
export function applyEdits(text: string, edits: readonly Edit[]): string {
  return [...edits].sort((a, b) => b.start - a.start).reduce(applyEdit, text);
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
