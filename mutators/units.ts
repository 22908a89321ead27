import type { Node } from '@babel/types';
import { childrenOf } from './walk.js';
import type { SourceFile, Unit } from './types.js';

function isFunction(node: Node | null | undefined): boolean {
  return !!node && (node.type === 'ArrowFunctionExpression' || node.type === 'FunctionExpression');
}

function keyName(key: Node, computed: boolean): string | null {
  if (computed) return null;
  if (key.type === 'Identifier') return key.name;
  if (key.type === 'StringLiteral') return key.value;
  if (key.type === 'PrivateName') return `#${key.id.name}`;
  return null;
}

function memberName(node: Node): string | null {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'MemberExpression' && !node.computed) {
    const object = memberName(node.object);
    const property = keyName(node.property, false);
    return object && property ? `${object}.${property}` : null;
  }
  return null;
}

/**
 * The units of a file: function declarations, class and object methods, getters and setters,
 * and functions assigned to variables (const, let, and the var of older code), class fields,
 * object keys or `exports.x`, and named function expressions outside every other unit. Type-only
 * code (overloads, `declare`, interfaces) has none. Callbacks inside a unit are not units: their
 * code belongs to the unit around them.
 */
export function discoverUnits(file: SourceFile): Unit[] {
  const found: Array<Pick<Unit, 'name' | 'kind' | 'node'>> = [];
  const unitNodes = new Set<Node>();
  let recorded = 0;
  const visit = (node: Node, owner: string | null, insideUnit: boolean): void => {
    const qualified = (name: string) => (owner ? `${owner}.${name}` : name);
    let childOwner = owner;
    // A named function expression outside every unit (`module.exports = cond ? function f() {} : function f() {}`)
    // is one, named as V8 names it for coverage: by its own name.
    if (node.type === 'FunctionExpression' && node.id && !insideUnit && !unitNodes.has(node))
      found.push({ name: node.id.name, kind: 'arrow', node });
    switch (node.type) {
      case 'FunctionDeclaration':
        found.push({ name: qualified(node.id?.name ?? 'default'), kind: 'function', node });
        break;
      case 'ClassDeclaration':
      case 'ClassExpression':
        childOwner = node.id?.name ?? owner ?? 'AnonymousClass';
        break;
      case 'ClassMethod':
      case 'ClassPrivateMethod':
      case 'ObjectMethod': {
        const name = keyName(node.key, node.computed ?? false);
        if (name)
          found.push({ name: qualified(name), kind: node.kind === 'get' ? 'getter' : node.kind === 'set' ? 'setter' : 'method', node });
        break;
      }
      case 'ClassProperty':
      case 'ClassPrivateProperty':
      case 'ObjectProperty': {
        const name = keyName(node.key, 'computed' in node ? (node.computed ?? false) : false);
        if (name && isFunction(node.value as Node)) found.push({ name: qualified(name), kind: 'arrow', node: node.value as Node });
        break;
      }
      case 'VariableDeclaration':
        for (const declarator of node.declarations) {
          if (declarator.id.type === 'Identifier' && isFunction(declarator.init)) {
            found.push({ name: qualified(declarator.id.name), kind: 'arrow', node: declarator.init! });
          }
        }
        break;
      case 'VariableDeclarator':
        // Objects assigned to a variable name their methods: `const api = { get() {} }` → api.get.
        if (node.id.type === 'Identifier' && node.init?.type === 'ObjectExpression') childOwner = node.id.name;
        break;
      case 'AssignmentExpression': {
        const name = memberName(node.left);
        if (name && isFunction(node.right)) found.push({ name, kind: 'arrow', node: node.right });
        break;
      }
      // A module that is one function: `export default (x) => ...`, TypeScript's `export = function f() {}`.
      case 'ExportDefaultDeclaration':
        if (isFunction(node.declaration)) found.push({ name: 'default', kind: 'arrow', node: node.declaration });
        break;
      case 'TSExportAssignment':
        // Named as V8 names it, which is what coverage reports: the function's own name, if it has one.
        if (node.expression.type === 'FunctionExpression' || node.expression.type === 'ArrowFunctionExpression') {
          const own = node.expression.type === 'FunctionExpression' ? node.expression.id?.name : undefined;
          found.push({ name: own ?? 'module.exports', kind: 'arrow', node: node.expression });
        }
        break;
    }
    for (; recorded < found.length; recorded++) unitNodes.add(found[recorded]!.node);
    for (const child of childrenOf(node)) visit(child, childOwner, insideUnit || unitNodes.has(node));
  };
  visit(file.ast.program, null, false);
  const boundary = new Set(found.map((unit) => unit.node));
  return found.map((unit) => {
    const located = { ...unit, boundary, startLine: unit.node.loc!.start.line, endLine: unit.node.loc!.end.line, complexity: 0 };
    return { ...located, complexity: complexityOf(located) };
  });
}

/** Whether a node is a branch point: each adds a path through the code. */
function branches(node: Node): boolean {
  switch (node.type) {
    case 'IfStatement':
    case 'ConditionalExpression':
    case 'ForStatement':
    case 'ForInStatement':
    case 'ForOfStatement':
    case 'WhileStatement':
    case 'DoWhileStatement':
    case 'CatchClause':
    case 'LogicalExpression':
      return true;
    case 'SwitchCase':
      return node.test !== null;
    case 'OptionalMemberExpression':
    case 'OptionalCallExpression':
      return node.optional;
    default:
      return false;
  }
}

function complexityOf(unit: Unit): number {
  let complexity = 1;
  for (const { node } of nodesOf(unit)) if (branches(node)) complexity++;
  return complexity;
}

/** Bounds on the units worth mutating: trivial ones teach little, huge ones make sprawling tasks. */
export interface UnitBounds {
  minComplexity: number;
  maxLines: number;
}

export function withinBounds(unit: Unit, bounds: UnitBounds): boolean {
  return unit.complexity >= bounds.minComplexity && unit.endLine - unit.startLine + 1 <= bounds.maxLines;
}

/** Nodes of a unit's own code with their parents, nested units excluded. */
export function* nodesOf(unit: Unit): Generator<{ node: Node; parent: Node | null }> {
  const stack: Array<{ node: Node; parent: Node | null }> = [{ node: unit.node, parent: null }];
  while (stack.length > 0) {
    const entry = stack.pop()!;
    yield entry;
    const children = [...childrenOf(entry.node)].filter((child) => !unit.boundary.has(child));
    for (let i = children.length - 1; i >= 0; i--) stack.push({ node: children[i]!, parent: entry.node });
  }
}
