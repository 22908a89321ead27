/** Lines with their terminators, so a missing final newline is a difference like any other. */
function linesOf(text: string): string[] {
  return text.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

function render(prefix: string, line: string): string {
  return line.endsWith('\n') ? `${prefix}${line}` : `${prefix}${line}\n\\ No newline at end of file\n`;
}

/**
 * A git-style unified diff of one file, as one hunk spanning the changed lines (mutants change
 * one region, so one hunk is the minimal diff). Empty when nothing changed.
 */
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return '';
  const a = linesOf(before);
  const b = linesOf(after);
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;

  const start = Math.max(0, prefix - context);
  const tail = Math.min(suffix, context);
  const oldEnd = a.length - suffix + tail;
  const newEnd = b.length - suffix + tail;
  const oldCount = oldEnd - start;
  const newCount = newEnd - start;
  // Unified diff numbers an empty range by the line before it.
  const oldStart = oldCount === 0 ? start : start + 1;
  const newStart = newCount === 0 ? start : start + 1;

  let out = `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n`;
  out += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`;
  for (let i = start; i < prefix; i++) out += render(' ', a[i]!);
  for (let i = prefix; i < a.length - suffix; i++) out += render('-', a[i]!);
  for (let i = prefix; i < b.length - suffix; i++) out += render('+', b[i]!);
  for (let i = a.length - suffix; i < oldEnd; i++) out += render(' ', a[i]!);
  return out;
}
