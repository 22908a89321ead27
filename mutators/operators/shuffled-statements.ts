import type { Node, Statement } from '@babel/types';
import { textOf } from '../edits.js';
import { nodesOf } from '../units.js';
import { childrenOf } from '../walk.js';
import type { Operator } from '../types.js';
import { isExit } from '../statements.js';

/** Code whose effects are unknown or that leaves: the order of any statement holding it can matter. */
const OPAQUE = new Set([
  'CallExpression',
  'OptionalCallExpression',
  'NewExpression',
  'AwaitExpression',
  'YieldExpression',
  'TaggedTemplateExpression',
  'ReturnStatement',
  'ThrowStatement',
  'BreakStatement',
  'ContinueStatement',
]);

/** What a statement touches: `opaque` when it may do anything, else the places it writes and names. */
interface Footprint {
  opaque: boolean;
  writes: string[];
  names: string[];
}

/** `a`, `this.x`, `this.#x`, `a.b.c`; an element `a[i]` counts as all of `a`; null for anything else. */
function placeOf(node: Node): string | null {
  if (node.type === 'Identifier') return node.name;
  if (node.type === 'ThisExpression') return 'this';
  if (node.type !== 'MemberExpression' && node.type !== 'OptionalMemberExpression') return null;
  const object = placeOf(node.object);
  const { property } = node;
  if (object === null || node.computed) return object;
  if (property.type === 'Identifier') return `${object}.${property.name}`;
  return property.type === 'PrivateName' ? `${object}.#${property.id.name}` : object;
}

function footprintOf(statement: Statement): Footprint {
  const footprint: Footprint = { opaque: false, writes: [], names: [] };
  const visit = (node: Node, parent: Node | null): void => {
    if (OPAQUE.has(node.type) || (node.type === 'UnaryExpression' && node.operator === 'delete')) footprint.opaque = true;
    if (node.type === 'AssignmentExpression' || node.type === 'UpdateExpression') {
      const place = placeOf(node.type === 'AssignmentExpression' ? node.left : node.argument);
      // A destructuring pattern writes more than one place: take it as unknown.
      if (place === null) footprint.opaque = true;
      else footprint.writes.push(place);
    }
    // Only whole places: `a` in `a.x` and the `x` of `a.x` are parts of the place `a.x`.
    const isPart =
      (parent?.type === 'MemberExpression' || parent?.type === 'OptionalMemberExpression') &&
      (parent.object === node || (!parent.computed && parent.property === node));
    const place = placeOf(node);
    if (place !== null && !isPart) footprint.names.push(place);
    for (const child of childrenOf(node)) visit(child, node);
  };
  visit(statement, null);
  return footprint;
}

/** Whether two places can be the same memory: equal, or one inside the other. */
function overlap(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

/** Whether running the two statements in the other order can change anything (getters and aliases aside). */
function dependent(first: Statement, second: Statement): boolean {
  const a = footprintOf(first);
  const b = footprintOf(second);
  if (a.opaque || b.opaque) return true;
  const reaches = (writes: string[], names: string[]) => writes.some((write) => names.some((name) => overlap(write, name)));
  return reaches(a.writes, b.names) || reaches(b.writes, a.names);
}

/** Declarations are hoisted or scope what follows, and code moved after an exit only becomes dead. */
function isMovable(statement: Statement): boolean {
  return !statement.type.endsWith('Declaration') && !isExit(statement) && statement.type !== 'EmptyStatement';
}

export const shuffledStatements: Operator = {
  name: 'shuffled-statements',
  family: 'control-flow',
  description: 'Swaps two adjacent statements of a block that depend on each other, so they run in the wrong order.',
  *sites(unit, file) {
    for (const { node } of nodesOf(unit)) {
      if (node.type !== 'BlockStatement') continue;
      for (let i = 1; i < node.body.length; i++) {
        const first = node.body[i - 1]!;
        const second = node.body[i]!;
        // Identical statements swap into the same text, which mutantsOf drops.
        if (!isMovable(first) || !isMovable(second) || !dependent(first, second)) continue;
        const between = file.text.slice(first.end!, second.start!);
        yield { start: first.start!, end: second.end!, replacement: textOf(file, second) + between + textOf(file, first) };
      }
    }
  },
};
