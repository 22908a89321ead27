/** Titles shorter than this are common words ("works"), not a give-away. */
const MIN_LEAK_LENGTH = 8;

/** Text as compared for leaks: case, whitespace and quote style do not count, so reformatting cannot hide a forbidden text. */
const comparable = (text: string): string => text.toLowerCase().replace(/["`]/g, "'").replace(/\s+/g, '');

/** The forbidden text a statement contains (a test title, a test file, a changed line), if any. */
export function leakIn(statement: { title: string; body: string }, forbidden: string[]): string | null {
  const text = comparable(`${statement.title}\n${statement.body}`);
  for (const secret of forbidden) {
    // A line's trailing `;`, `,` or `{` (and a leading `}`) are formatting, not content.
    const needle = comparable(secret).replace(/^}+|[;,{]+$/g, '');
    if (needle.length >= MIN_LEAK_LENGTH && text.includes(needle)) return secret.trim();
  }
  return null;
}
