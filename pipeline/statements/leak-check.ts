/** Titles shorter than this are common words ("works"), not a give-away. */
const MIN_LEAK_LENGTH = 8;

/** Text as compared for leaks: case, whitespace and quote style do not count, so reformatting cannot hide a forbidden text. */
const comparable = (text: string): string => text.toLowerCase().replace(/["`]/g, "'").replace(/\s+/g, '');

/** A file's name alone (`subset.js`), which may also end the path of another file (`semver/ranges/subset.js`). */
const FILE_NAME = /^[\w.-]+\.\w+$/;

/** Whether `needle` occurs in `text`; a file's name only as a name of its own, not as the end of a longer path. */
function occurs(text: string, needle: string): boolean {
  if (!FILE_NAME.test(needle)) return text.includes(needle);
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + 1)) if (text[at - 1] !== '/') return true;
  return false;
}

/** The forbidden text a statement contains (a test title, a test file, a changed line), if any. */
export function leakIn(statement: { title: string; body: string }, forbidden: string[]): string | null {
  const text = comparable(`${statement.title}\n${statement.body}`);
  for (const secret of forbidden) {
    // A line's trailing `;`, `,` or `{` (and a leading `}`) are formatting, not content.
    const needle = comparable(secret).replace(/^}+|[;,{]+$/g, '');
    if (needle.length >= MIN_LEAK_LENGTH && occurs(text, needle)) return secret.trim();
  }
  return null;
}

/** Runs of this many words of a commit message are specific enough to give its fix away. */
const PHRASE_WORDS = 4;

/**
 * What a statement must never repeat of the commit a task reverts: its hash, author and subject,
 * the issues it names, and every run of a few words of its message.
 */
export function commitPhrases(commit: { hash: string; subject: string; message: string; author: string }): string[] {
  const words = commit.message.split(/\s+/).filter(Boolean);
  const runs = words.slice(0, Math.max(0, words.length - PHRASE_WORDS + 1)).map((_, i) => words.slice(i, i + PHRASE_WORDS).join(' '));
  const issues = commit.message.match(/(?:[\w.-]+\/[\w.-]+)?#\d+|https?:\/\/\S+/g) ?? [];
  return [commit.hash, commit.hash.slice(0, 8), commit.author, commit.subject, ...issues, ...runs];
}
