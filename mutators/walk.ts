import type { Node } from '@babel/types';

const SKIPPED_KEYS = new Set([
  'loc',
  'start',
  'end',
  'extra',
  'leadingComments',
  'trailingComments',
  'innerComments',
  'range',
  // Type positions: TypeScript types hold literals and operators too, but they are not code to mutate.
  'typeAnnotation',
  'returnType',
  'typeParameters',
  'typeArguments',
  'superTypeParameters',
  'implements',
  'predicate',
]);

/** Declarations that exist only for the type checker and vanish from the emitted code. */
const TYPE_ONLY = new Set(['TSInterfaceDeclaration', 'TSTypeAliasDeclaration', 'TSDeclareFunction', 'TSDeclareMethod', 'TSIndexSignature']);

function isTypeOnly(node: Node): boolean {
  const flags = node as { declare?: boolean; exportKind?: string; importKind?: string };
  return TYPE_ONLY.has(node.type) || flags.declare === true || flags.exportKind === 'type' || flags.importKind === 'type';
}

function isNode(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

/** The direct child nodes of `node` that are code, in source order (types and `declare`d code are left out). */
export function* childrenOf(node: Node): Generator<Node> {
  for (const key of Object.keys(node)) {
    if (SKIPPED_KEYS.has(key)) continue;
    const value = (node as unknown as Record<string, unknown>)[key];
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item) && !isTypeOnly(item)) yield item;
    } else if (isNode(value) && !isTypeOnly(value)) {
      yield value;
    }
  }
}
