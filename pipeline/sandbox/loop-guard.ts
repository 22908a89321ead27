import type { Node } from '@babel/types';
import { parseSource } from '../../mutators/parse.js';
import { childrenOf } from '../../mutators/walk.js';

/**
 * Iterations of one loop, entered once, past which a mutant is taken to hang. A mutant that loops
 * forever otherwise costs its whole time limit; no unit test's loop over its own input comes near.
 */
export const LOOP_LIMIT = 10_000_000;
/**
 * The signal a guarded loop sends its process group at the limit: it ends the runner and its
 * workers at once, and nothing else sends it (Node leaves it to its default, which ends the process).
 */
export const LOOP_LIMIT_SIGNAL = 'SIGVTALRM';

const COUNTER = '__swesynthIterations';
const LOOPS = new Set(['ForStatement', 'ForInStatement', 'ForOfStatement', 'WhileStatement', 'DoWhileStatement']);
/** Type annotations would need declarations the guard cannot bring: TypeScript runs unguarded. */
const GUARDED_FILE = /\.(c|m)?jsx?$/;

interface Insertion {
  offset: number;
  text: string;
  /** Where insertions meet at one offset: openings go outermost first, closings innermost first. */
  depth: number;
}

/**
 * The mutated file as validation runs it: every loop counts its iterations, and one that passes
 * LOOP_LIMIT ends its process group with LOOP_LIMIT_SIGNAL, a verdict of timeout in a fraction of
 * the time limit. Inserted within lines, so line numbers stay; until a loop reaches the limit the
 * code does what the mutant does. The text unchanged where the file is not JavaScript or does not parse.
 */
export function guardLoops(path: string, text: string): string {
  if (!GUARDED_FILE.test(path)) return text;
  let program: Node;
  try {
    program = parseSource(path, text).ast.program;
  } catch {
    return text;
  }
  const insertions: Insertion[] = [];
  // ES5 only (`var`, one counter per depth of nesting, set to 0 each time its loop is entered): a build may run
  // the code through a tool that reads nothing newer (an old minifier), and must read the guarded code as the mutant.
  const guard = (depth: number) =>
    `if (++${COUNTER}${depth} > ${LOOP_LIMIT} && typeof process === "object") process.kill(0, "${LOOP_LIMIT_SIGNAL}");`;
  const visit = (node: Node, labelled: Node | null, loops: number) => {
    if (node.type === 'LabeledStatement') {
      visit(node.body, labelled ?? node, loops);
      return;
    }
    if (LOOPS.has(node.type)) {
      const body = (node as Node & { body: Node }).body;
      // The counter's block goes around the labels too: a `continue label` must still name the loop.
      const outer = labelled ?? node;
      insertions.push({ offset: outer.start!, text: `{var ${COUNTER}${loops} = 0; `, depth: 2 * loops });
      insertions.push({ offset: outer.end!, text: '}', depth: 2 * loops });
      if (body.type === 'BlockStatement') {
        insertions.push({ offset: body.start! + 1, text: guard(loops), depth: 2 * loops + 1 });
      } else {
        insertions.push({ offset: body.start!, text: `{${guard(loops)} `, depth: 2 * loops + 1 });
        insertions.push({ offset: body.end!, text: '}', depth: 2 * loops + 1 });
      }
      for (const child of childrenOf(node)) visit(child, null, loops + 1);
      return;
    }
    for (const child of childrenOf(node)) visit(child, null, loops);
  };
  visit(program, null, 0);
  if (insertions.length === 0) return text;
  const opening = (insertion: Insertion) => insertion.text !== '}';
  // From the end, so offsets stay those of the original. At one offset the last inserted ends up first, and the
  // text must read: closings innermost first, then openings outermost first.
  const ordered = insertions.sort(
    (a, b) => b.offset - a.offset || Number(opening(b)) - Number(opening(a)) || (opening(a) ? b.depth - a.depth : a.depth - b.depth),
  );
  let guarded = text;
  for (const { offset, text: inserted } of ordered) guarded = guarded.slice(0, offset) + inserted + guarded.slice(offset);
  return guarded;
}
