import type { BlockStatement, CatchClause, Node } from '@babel/types';
import { replaceNode, textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import { childrenOf } from '../walk.js';
import type { Operator, SourceFile } from '../types.js';

/** `catch (e) { throw e; }` hands every error on: without the `try` they propagate just the same. */
function rethrows(handler: CatchClause): boolean {
  const [only, ...rest] = handler.body.body;
  return (
    rest.length === 0 &&
    only?.type === 'ThrowStatement' &&
    only.argument.type === 'Identifier' &&
    handler.param?.type === 'Identifier' &&
    only.argument.name === handler.param.name
  );
}

function hasMultilineTemplate(file: SourceFile, node: Node): boolean {
  if (node.type === 'TemplateLiteral' && textOf(file, node).includes('\n')) return true;
  return [...childrenOf(node)].some((child) => hasMultilineTemplate(file, child));
}

function indentationAt(text: string, offset: number): string {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(lineStart))![0];
}

/**
 * The code inside a `try` block, comments included, to stand where the `try` stood: its lines move
 * out by the block's extra indentation, unless a multi-line template literal would change with them.
 */
function unwrapped(file: SourceFile, tryStart: number, block: BlockStatement): string {
  const body = file.text.slice(block.start! + 1, block.end! - 1);
  const inner = body.trim();
  const outer = indentationAt(file.text, tryStart);
  const nested = indentationAt(file.text, block.start! + 1 + body.length - body.trimStart().length);
  if (nested.length <= outer.length || !nested.startsWith(outer) || hasMultilineTemplate(file, block)) return inner;
  return inner
    .split('\n')
    .map((line) => (line.startsWith(nested) ? outer + line.slice(nested.length) : line))
    .join('\n');
}

export const removedCatchHandling: Operator = {
  name: 'removed-catch-handling',
  family: 'removal',
  description:
    'Breaks the error handling of a `try`/`catch`: empties the `catch` body (errors are swallowed) or removes the `try` around its code (errors propagate).',
  *sites(unit, file) {
    for (const { node, parent } of nodesOf(unit)) {
      // An empty `try` throws nothing, so its `catch` never runs.
      if (node.type !== 'TryStatement' || !node.handler || node.block.body.length === 0) continue;
      if (node.handler.body.body.length > 0) yield replaceNode(node.handler.body, '{}');
      // Only inside braces, where several statements can stand; a `finally` would have to stay.
      if (parent?.type === 'BlockStatement' && !node.finalizer && !rethrows(node.handler))
        yield replaceNode(node, unwrapped(file, node.start!, node.block));
    }
  },
};
