import type { Edit } from './types.js';

/** Lines with their terminators, so a missing final newline is a difference like any other. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function render(prefix: string, line: string): string {
  return line.endsWith('\n') ? `${prefix}${line}` : `${prefix}${line}\n\\ No newline at end of file\n`;
}

type Op = ' ' | '-' | '+';

/**
 * The shortest edit script between two line lists (Myers' O(ND) algorithm). Mutants change a few
 * lines, so D is small and this stays linear in the file's length.
 */
function editScript(a: readonly string[], b: readonly string[]): Op[] {
  const max = a.length + b.length;
  const offset = max + 1;
  const furthest = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(furthest.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && furthest[offset + k - 1]! < furthest[offset + k + 1]!)
          ? furthest[offset + k + 1]!
          : furthest[offset + k - 1]! + 1;
      let y = x - k;
      while (x < a.length && y < b.length && a[x] === b[y]) {
        x++;
        y++;
      }
      furthest[offset + k] = x;
      if (x >= a.length && y >= b.length) {
        found = true;
        break;
      }
    }
  }
  // Walk the trace back from the end to recover the path.
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = trace.length - 1; d >= 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = d === 0 ? 0 : v[offset + previousK]!;
    const previousY = previousX - previousK;
    while (x > previousX && y > previousY) {
      ops.push(' ');
      x--;
      y--;
    }
    if (d > 0) {
      ops.push(down ? '+' : '-');
      if (down) y--;
      else x--;
    }
  }
  return ops.reverse();
}

/**
 * A git-style unified diff of one file: a hunk per changed region with `context` lines around it,
 * regions closer than twice the context sharing a hunk. Empty when nothing changed.
 */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  const a = linesOf(before);
  const b = linesOf(after);
  const ops = editScript(a, b);

  let out = `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`;
  let i = 0;
  // Line positions in a and b at ops[i].
  const positions: Array<[number, number]> = [];
  for (let oldLine = 0, newLine = 0, j = 0; j < ops.length; j++) {
    positions.push([oldLine, newLine]);
    if (ops[j] !== '+') oldLine++;
    if (ops[j] !== '-') newLine++;
  }
  while (i < ops.length) {
    while (i < ops.length && ops[i] === ' ') i++;
    if (i === ops.length) break;
    const start = Math.max(0, i - context);
    // Extend the hunk while the next change is within 2 × context unchanged lines.
    let end = i;
    let unchanged = 0;
    for (let j = i; j < ops.length && unchanged <= 2 * context; j++) {
      if (ops[j] === ' ') unchanged++;
      else {
        unchanged = 0;
        end = j + 1;
      }
    }
    const stop = Math.min(ops.length, end + context);
    const slice = ops.slice(start, stop);
    const oldCount = slice.filter((op) => op !== '+').length;
    const newCount = slice.filter((op) => op !== '-').length;
    const [oldAt, newAt] = positions[start]!;
    // Unified diff numbers an empty range by the line before it.
    out += `@@ -${oldCount === 0 ? oldAt : oldAt + 1},${oldCount} +${newCount === 0 ? newAt : newAt + 1},${newCount} @@\n`;
    for (let j = start; j < stop; j++) {
      const [oldLine, newLine] = positions[j]!;
      out += render(ops[j]!, ops[j] === '+' ? b[newLine]! : a[oldLine]!);
    }
    i = stop;
  }
  return out;
}

/** A git diff that creates `path` with `text`: how a test patch brings back a hidden test file. */
export function newFileDiff(path: string, text: string): string {
  const lines = text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
  const body = lines.map((line) => render('+', line)).join('');
  return `diff --git a/${path} b/${path}\nnew file mode 100644\n--- /dev/null\n+++ b/${path}\n@@ -0,0 +${lines.length === 0 ? 0 : 1},${lines.length} @@\n${body}`;
}

/**
 * The edits that turn `before` into `after`: one per changed region of whole lines, at offsets in
 * `before`, so that a change made elsewhere (a reverted commit) becomes sites like a mutant's.
 */
export function lineEdits(before: string, after: string): Edit[] {
  const a = linesOf(before);
  const b = linesOf(after);
  const ops = editScript(a, b);
  const edits: Edit[] = [];
  let offset = 0;
  for (let i = 0, oldLine = 0, newLine = 0; i < ops.length;) {
    if (ops[i] === ' ') {
      offset += a[oldLine]!.length;
      oldLine++;
      newLine++;
      i++;
      continue;
    }
    const start = offset;
    let replacement = '';
    for (; i < ops.length && ops[i] !== ' '; i++) {
      if (ops[i] === '-') offset += a[oldLine++]!.length;
      else replacement += b[newLine++]!;
    }
    edits.push({ start, end: offset, replacement });
  }
  return edits;
}
