// How swesynth names a test: plain functions with no imports, so that a report reader a Harbor
// task's grader loads without swesynth (see RunnerAdapter.reportFormat) names tests as validation does.

/** Makes ids unique by numbering repeats in order: `a`, `a #2`, `a #3`. */
export function withUniqueIds<T extends { id: string }>(results: T[]): T[] {
  const seen = new Map<string, number>();
  return results.map((result) => {
    const count = (seen.get(result.id) ?? 0) + 1;
    seen.set(result.id, count);
    return count === 1 ? result : { ...result, id: `${result.id} #${count}` };
  });
}

export function testId(file: string, titlePath: string[]): string {
  return `${file}::${titlePath.join(' > ')}`;
}

/**
 * The text with the absolute path of the repository's copy taken out: a path under it becomes
 * repository-relative (`<root>/test/fixtures/a.json` → `test/fixtures/a.json`), the root itself `.`.
 * A test named after a path it works on (`relative(process.cwd(), …)`, `fixtures/${name}` under
 * `__dirname`) then has one name in every copy, wherever the copy lies.
 */
export function withoutRootPath(text: string, root: string): string {
  const bare = root.replace(/\/+$/, '');
  if (bare === '' || !text.includes(bare)) return text;
  const escaped = bare.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  // The root alone, not the start of a longer name beside it (`<root>-old`, `<root>2`).
  return text
    .split(`${bare}/`)
    .join('')
    .replace(new RegExp(`${escaped}(?![\\w.@+-])`, 'g'), '.');
}

/** The test file of a test id (`test/parse.js::parses dates`). */
export function testFileOf(id: string): string {
  return id.slice(0, id.indexOf('::'));
}
