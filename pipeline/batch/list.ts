import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { z } from 'zod';
import { describeIssues, UserError } from '../common/errors.js';
import { isGitUrl } from '../repo/profile.js';

/** One repository of a batch: a path, a git URL or a repo profile (.json), and the commit to take. */
export const BatchEntry = z.object({
  /** As the list gives it, for the table. */
  given: z.string(),
  /** A git URL as given; a path made absolute from the list's folder. */
  location: z.string(),
  commit: z.string().nullable(),
});
export type BatchEntry = z.infer<typeof BatchEntry>;

const JsonList = z.array(z.object({ url: z.string().min(1), commit: z.string().min(1).optional() }).strict()).min(1);

/** The state file's key of an entry: an edited list keeps the outcomes of the entries it still holds. */
export const entryKey = (entry: BatchEntry): string => `${entry.location}${entry.commit ? ` ${entry.commit}` : ''}`;

/**
 * The repositories a list file names: one a line, `<path-or-url> [commit]`, with `#` comments, or
 * a JSON array of {url, commit?}. Relative paths are relative to the list's folder.
 */
export function readBatchList(file: string): BatchEntry[] {
  if (!existsSync(file)) throw new UserError(`batch list ${file} does not exist`, 'check the path');
  const text = readFileSync(file, 'utf8');
  const locate = (given: string) => (isGitUrl(given) ? given : resolve(dirname(file), given));
  const entries: Array<BatchEntry & { where: string }> = [];
  if (text.trimStart().startsWith('[')) {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new UserError(`batch list ${file} is not valid JSON: ${(error as Error).message}`);
    }
    const parsed = JsonList.safeParse(raw);
    if (!parsed.success) throw new UserError(`batch list ${file} is malformed: ${describeIssues(parsed.error, ['url', 'commit'])}`);
    parsed.data.forEach(({ url, commit }, i) =>
      entries.push({ given: url, location: locate(url), commit: commit ?? null, where: `entry ${i + 1}` }),
    );
  } else {
    text.split('\n').forEach((line, i) => {
      // A `#` starts a comment at the start of a line or after a space; inside a URL it does not.
      const fields = line
        .replace(/(^|\s)#.*$/, '')
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      if (fields.length === 0) return;
      if (fields.length > 2)
        throw new UserError(
          `${file}:${i + 1}: expected \`<path-or-url> [commit]\`, found ${fields.length} fields`,
          'write one repository a line',
        );
      entries.push({ given: fields[0]!, location: locate(fields[0]!), commit: fields[1] ?? null, where: `line ${i + 1}` });
    });
  }
  if (entries.length === 0) throw new UserError(`batch list ${file} names no repository`, 'write one path or git URL a line');
  const seen = new Map<string, string>();
  for (const { where, ...entry } of entries) {
    if (entry.location.endsWith('.json') && entry.commit)
      throw new UserError(`${file}, ${where}: a repo profile names its own commit`, `set "commit" in ${entry.given} instead`);
    const earlier = seen.get(entryKey(entry));
    if (earlier) throw new UserError(`${file}, ${where}: ${entry.given} is listed twice (also at ${earlier})`, 'list each repository once');
    seen.set(entryKey(entry), where);
  }
  return entries.map(({ where: _where, ...entry }) => entry);
}
