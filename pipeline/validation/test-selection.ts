import type { CoverageMap, Site } from '../store/records.js';

/** The test files to run for a candidate, most likely to notice it first, and how long to allow. */
export interface Selection {
  files: string[];
  timeoutMs: number;
}

const withoutExtension = (path: string) => path.replace(/\.[cm]?[jt]sx?$/, '');

/** Calls of a function in a file's record; own keys only, so `toString` is a name, not Object's method. */
const callsOf = (executed: Record<string, number>, name: string): number => (Object.hasOwn(executed, name) ? executed[name]! : 0);

/** The name V8 gives a unit's function: `Parser.parse` runs as `parse`, a constructor as its class. */
export function runtimeName(unit: string): string {
  const parts = unit.split('.');
  const last = parts.at(-1)!;
  return last === 'constructor' && parts.length > 1 ? parts.at(-2)! : last;
}

/** Folders that builds write to, and the source folders they are written from (`babel src -d lib`, `outDir: dist`). */
const OUTPUT_FOLDERS = new Set(['lib', 'dist', 'build', 'out', 'es', 'esm', 'cjs', 'umd', 'compiled']);
const SOURCE_FOLDERS = new Set(['src', 'source', 'lib', 'ts']);

/**
 * The files the tests loaded that hold `source`: the file itself, or its built output (a path
 * ending in the same path without extension, such as build/lib/parse.js for lib/parse.ts, or the
 * same path with a source folder replaced by an output folder, such as lib/parse.js for
 * src/parse.js, or packages/a/lib/parse.js for packages/a/src/parse.js).
 */
export function loadedAs(source: string, loaded: Iterable<string>): string[] {
  const stem = withoutExtension(source);
  const segments = stem.split('/');
  const sourceFolderAt = segments.flatMap((segment, at) => (SOURCE_FOLDERS.has(segment) && at < segments.length - 1 ? [at] : []));
  return [...loaded].filter((path) => {
    const other = withoutExtension(path);
    if (other === stem || other.endsWith(`/${stem}`)) return true;
    const otherSegments = other.split('/');
    if (otherSegments.length !== segments.length) return false;
    return sourceFolderAt.some(
      (at) =>
        otherSegments[at] !== segments[at] &&
        OUTPUT_FOLDERS.has(otherSegments[at]!) &&
        otherSegments.every((segment, index) => index === at || segment === segments[index]),
    );
  });
}

/**
 * The test files that can notice a change to these sites: those that executed one of the sites'
 * functions, in the file, its built output or a bundle built from it, or, where V8 knows no
 * function of that name (a bundler renamed it), those that loaded the file; plus every file whose coverage could not be measured. A test file that never
 * calls the function runs exactly as before, so its tests pass as they did at baseline.
 */
export function coveringTestFiles(coverage: CoverageMap, sites: Pick<Site, 'file' | 'unit'>[]): string[] {
  const covering = new Set(coverage.testFiles.filter((test) => !test.measured).map((test) => test.file));
  const allLoaded = Object.keys(coverage.known);
  for (const site of sites) {
    const paths = [...loadedAs(site.file, allLoaded), ...(coverage.bundled[site.file] ?? [])];
    const name = runtimeName(site.unit);
    const named = paths.some((path) => coverage.known[path]!.includes(name));
    for (const test of coverage.testFiles) {
      const ran = paths.some((path) => {
        const executed = test.executed[path];
        return executed !== undefined && (named ? callsOf(executed, name) > 0 : true);
      });
      if (ran) covering.add(test.file);
    }
  }
  return [...covering];
}

/**
 * The covering files, most likely to notice the change first: a test file named after the
 * changed file (parse.test.ts for parse.ts), then the one calling the function most often, then
 * the fastest. The timeout scales with their baseline time and never exceeds the whole suite's.
 */
export function selectTests(
  coverage: CoverageMap,
  sites: Pick<Site, 'file' | 'unit'>[],
  timeouts: { factor: number; minimumMs: number; wholeSuiteMs: number },
): Selection {
  const byFile = new Map(coverage.testFiles.map((test) => [test.file, test]));
  const stems = new Set(sites.map((site) => withoutExtension(site.file).split('/').pop()!));
  const names = new Set(sites.map((site) => runtimeName(site.unit)));
  const rank = (file: string) => {
    const test = byFile.get(file)!;
    const base = file.split('/').pop()!.split('.')[0]!;
    const calls = Object.values(test.executed).reduce(
      (sum, executed) => sum + [...names].reduce((n, name) => n + callsOf(executed, name), 0),
      0,
    );
    return { named: stems.has(base) ? 0 : 1, calls, durationMs: test.durationMs };
  };
  const files = coveringTestFiles(coverage, sites)
    .map((file) => ({ file, ...rank(file) }))
    .sort((a, b) => a.named - b.named || b.calls - a.calls || a.durationMs - b.durationMs || a.file.localeCompare(b.file))
    .map((ranked) => ranked.file);
  const baselineMs = files.reduce((sum, file) => sum + byFile.get(file)!.durationMs, 0);
  return { files, timeoutMs: Math.min(timeouts.wholeSuiteMs, Math.round(timeouts.factor * baselineMs + timeouts.minimumMs)) };
}

/**
 * A kill screen over a selection: the first file alone, then twice as many files at each step.
 * The first file notices most mutants, so a killed candidate usually costs one small run; one
 * that survives costs a few runner starts more than running the selection at once. Each step
 * gets the whole selection's time limit, so that a mutant racing the clock (a loop filling
 * memory) ends as it would in the complete run.
 */
export function screenSteps(selection: Selection): Selection[] {
  const steps: Selection[] = [];
  for (let start = 0, size = 1; start < selection.files.length; start += size, size *= 2) {
    steps.push({ files: selection.files.slice(start, start + size), timeoutMs: selection.timeoutMs });
  }
  return steps;
}
