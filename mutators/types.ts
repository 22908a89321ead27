import type { Node, File } from '@babel/types';

/** A parsed source file: its text and AST. Offsets in edits index into `text`. */
export interface SourceFile {
  path: string;
  text: string;
  ast: File;
}

/** A function-like piece of code that mutations are attributed to. */
export interface Unit {
  /** Qualified name, e.g. `clamp`, `ShoppingCart.total` or `api.load`. */
  name: string;
  kind: 'function' | 'method' | 'getter' | 'setter' | 'arrow';
  /** 1-based first and last line. */
  startLine: number;
  endLine: number;
  /** Cyclomatic complexity of the unit's own code: 1 plus one per branch point. */
  complexity: number;
  /** The function node itself (declaration, method, arrow or function expression). */
  node: Node;
  /** Every unit node of the file: a unit's own code stops where a nested unit begins. */
  boundary: ReadonlySet<Node>;
}

/** Replace text[start, end) with `replacement`. */
export interface Edit {
  start: number;
  end: number;
  replacement: string;
}

/** What part of the language an operator changes; the stats group operators by it. */
export type OperatorFamily = 'boundary' | 'logic' | 'arithmetic' | 'literal' | 'control-flow' | 'removal' | 'call' | 'async';

export interface Operator {
  name: string;
  family: OperatorFamily;
  description: string;
  /** Every edit this operator makes inside `unit` (one edit = one mutant). */
  sites(unit: Unit, file: SourceFile): Iterable<Edit>;
}
