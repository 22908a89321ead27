import type { LogicalExpression, Node } from '@babel/types';
import { operatorOffset, replaceOperator, textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import type { Edit, Operator, SourceFile } from '../types.js';
import { isUndefined } from '../syntax.js';

const SWAPPED: Record<string, string> = { '??': '||', '||': '??', '??=': '||=', '||=': '??=' };

/**
 * Left sides for which `??` and `||` pick the same operand: always nullish (both take the right),
 * or always truthy (both keep the left). Swapping the operator there changes nothing.
 */
function decidesAlike(left: Node): boolean {
  switch (left.type) {
    case 'NullLiteral':
    case 'ObjectExpression':
    case 'ArrayExpression':
    case 'FunctionExpression':
    case 'ArrowFunctionExpression':
    case 'ClassExpression':
    case 'NewExpression':
    case 'RegExpLiteral':
      return true;
    case 'StringLiteral':
    case 'NumericLiteral':
    case 'BooleanLiteral':
      return !!left.value;
    case 'UnaryExpression':
      return left.operator === 'typeof' || isUndefined(left);
    default:
      return isUndefined(left);
  }
}

/** JavaScript forbids mixing `??` with `&&` or `||` without parentheses. */
function mixes(operator: string, other: string): boolean {
  return (operator === '??') !== (other === '??');
}

/** An unparenthesized logical expression next to which `operator` would need parentheses. */
function clashes(operator: string, neighbour: Node | null | undefined): boolean {
  return neighbour?.type === 'LogicalExpression' && !neighbour.extra?.parenthesized && mixes(operator, neighbour.operator);
}

/**
 * Swaps the operator of `node`. Where the new operator would mix with a neighbouring `&&`, `||`
 * or `??`, the edit spans the expression to add the parentheses it needs (`a || b || c` becomes
 * `(a ?? b) || c`); elsewhere it replaces the operator alone.
 */
function swapLogical(file: SourceFile, node: LogicalExpression, parent: Node | null): Edit {
  const to = SWAPPED[node.operator]!;
  const inParent = !node.extra?.parenthesized && parent?.type === 'LogicalExpression' && mixes(to, parent.operator);
  if (!inParent && !clashes(to, node.left) && !clashes(to, node.right))
    return replaceOperator(file, node.left, node.right, node.operator, to);
  const { text } = file;
  const at = operatorOffset(file, node.left, node.right, node.operator);
  const wrapped = (operand: Node) => (clashes(to, operand) ? `(${textOf(file, operand)})` : textOf(file, operand));
  const left = text.slice(node.start!, node.left.start!) + wrapped(node.left) + text.slice(node.left.end!, at);
  const right = text.slice(at + node.operator.length, node.right.start!) + wrapped(node.right) + text.slice(node.right.end!, node.end!);
  const swapped = `${left}${to}${right}`;
  return { start: node.start!, end: node.end!, replacement: inParent ? `(${swapped})` : swapped };
}

export const nullishSwap: Operator = {
  name: 'nullish-swap',
  family: 'logic',
  description: 'Swaps a nullish fallback for a falsy one and back: `??` becomes `||`, `??=` becomes `||=`, and the reverse.',
  *sites(unit, file) {
    for (const { node, parent } of nodesOf(unit)) {
      if (node.type === 'LogicalExpression' && node.operator !== '&&' && !decidesAlike(node.left)) {
        yield swapLogical(file, node, parent);
      } else if (node.type === 'AssignmentExpression' && SWAPPED[node.operator]) {
        yield replaceOperator(file, node.left, node.right, node.operator, SWAPPED[node.operator]!);
      }
    }
  },
};
