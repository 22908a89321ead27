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

/** The test file of a test id (`test/parse.js::parses dates`). */
export function testFileOf(id: string): string {
  return id.slice(0, id.indexOf('::'));
}
