import type { Loop, Node, Statement } from '@babel/types';
import { nodesOf } from './units.js';
import type { Unit } from './types.js';

const LOOPS = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
const EXITS = new Set(['ReturnStatement', 'ThrowStatement', 'BreakStatement', 'ContinueStatement']);

export function isLoop(node: Node): node is Loop {
  return LOOPS.has(node.type);
}

/** A statement that leaves its block: nothing after it runs. */
export function isExit(node: Node): boolean {
  return EXITS.has(node.type);
}

/** The statement a body ends with: the last of a block (none when empty), or the body itself when unbraced. */
export function lastStatementOf(body: Statement): Statement | undefined {
  return body.type === 'BlockStatement' ? body.body.at(-1) : body;
}

/**
 * The statements that stand alone in the braces of an `if` body without `else`, an `else` body, a
 * loop body or a `catch` body. Removing one empties that body, the same bug as removing the `if`,
 * the `else`, the loop or the error handling, which removed-if-block, removed-else-branch,
 * removed-loop and removed-catch-handling make; the other removals leave these statements alone.
 */
export function soleBodyStatements(unit: Unit): Set<Node> {
  const sole = new Set<Node>();
  const add = (body: Node | null | undefined): void => {
    if (body?.type === 'BlockStatement' && body.body.length === 1) sole.add(body.body[0]!);
  };
  for (const { node } of nodesOf(unit)) {
    // With an `else`, emptying the `if` body is a bug of its own: `if (!c) else-body`.
    if (node.type === 'IfStatement') add(node.alternate ?? node.consequent);
    else if (isLoop(node)) add(node.body);
    else if (node.type === 'CatchClause') add(node.body);
  }
  return sole;
}
