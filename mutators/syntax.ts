import type { CallExpression, Identifier, NewExpression, Node, OptionalCallExpression } from '@babel/types';
import { nodesOf } from './units.js';
import type { Edit, SourceFile, Unit } from './types.js';

export type CallLike = CallExpression | OptionalCallExpression | NewExpression;

/** Calls and `new` expressions; `import()` is a module load, not a call worth breaking. */
export function isCallLike(node: Node): node is CallLike {
  if (node.type === 'NewExpression' || node.type === 'OptionalCallExpression') return true;
  return node.type === 'CallExpression' && node.callee.type !== 'Import';
}

/** A method call `x.name(...)` or `x?.name(...)`: the call, its receiver `x` and the name. */
export interface MethodCall {
  call: CallExpression | OptionalCallExpression;
  receiver: Node;
  method: Identifier;
}

export function methodCallOf(node: Node): MethodCall | null {
  if (node.type !== 'CallExpression' && node.type !== 'OptionalCallExpression') return null;
  const callee = node.callee;
  if (callee.type !== 'MemberExpression' && callee.type !== 'OptionalMemberExpression') return null;
  if (callee.computed || callee.property.type !== 'Identifier') return null;
  return { call: node, receiver: callee.object, method: callee.property };
}

/**
 * The range of a node including the parentheses around it: Babel's range excludes them, and
 * moving an operand without its parentheses would leave them around the wrong text.
 */
export function outerRange(file: SourceFile, node: Node): { start: number; end: number } {
  const parenStart = node.extra?.parenStart as number | undefined;
  if (parenStart === undefined) return { start: node.start!, end: node.end! };
  // Only whitespace, comments and more `(` stand between the outermost `(` and the node.
  let depth = [...file.text.slice(parenStart, node.start!)].filter((char) => char === '(').length;
  let end = node.end!;
  while (depth > 0 && end < file.text.length) if (file.text[end++] === ')') depth--;
  return { start: parenStart, end };
}

export function outerText(file: SourceFile, node: Node): string {
  const { start, end } = outerRange(file, node);
  return file.text.slice(start, end);
}

/**
 * One edit exchanging the texts of two nodes, `first` before `second`, each with its parentheses;
 * `wrap` can add parentheses a text needs in its new place.
 */
export function swapTexts(
  file: SourceFile,
  first: Node,
  second: Node,
  wrap: (moved: Node, text: string) => string = (_, text) => text,
): Edit {
  const a = outerRange(file, first);
  const b = outerRange(file, second);
  const between = file.text.slice(a.end, b.start);
  return { start: a.start, end: b.end, replacement: wrap(second, outerText(file, second)) + between + wrap(first, outerText(file, first)) };
}

/** The parent of every node of a unit's own code, for operators that look further up than one level. */
export function parentsOf(unit: Unit): Map<Node, Node | null> {
  const parents = new Map<Node, Node | null>();
  for (const { node, parent } of nodesOf(unit)) parents.set(node, parent);
  return parents;
}

/** A literal's value, or undefined for non-literals; `-1` counts as the literal -1. */
export function literalValue(node: Node): { value: unknown } | undefined {
  switch (node.type) {
    case 'NumericLiteral':
    case 'StringLiteral':
    case 'BooleanLiteral':
      return { value: node.value };
    case 'BigIntLiteral':
      return { value: BigInt(node.value) };
    case 'NullLiteral':
      return { value: null };
    case 'UnaryExpression':
      return node.operator === '-' && node.argument.type === 'NumericLiteral' ? { value: -node.argument.value } : undefined;
    default:
      return undefined;
  }
}

/** `undefined` and `void 0`: passing or defaulting to them is the same as leaving them out. */
export function isUndefined(node: Node): boolean {
  return (
    (node.type === 'Identifier' && node.name === 'undefined') ||
    (node.type === 'UnaryExpression' && node.operator === 'void' && node.argument.type === 'NumericLiteral')
  );
}
