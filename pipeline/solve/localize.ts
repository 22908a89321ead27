import type { SourceFile, Unit } from '../../mutators/types.js';
import { discoverUnits } from '../../mutators/units.js';
import { loadedAs, runtimeName } from '../validation/test-selection.js';

/** What one run executed: per loaded file, the functions that ran, by their short name, with their call counts. */
export type Executed = Record<string, Record<string, number>>;

/** A function of the source the failing runs executed, and how suspicious it is. */
export interface Suspect {
  file: string;
  unit: Unit;
  /** Ochiai: executed by the failing runs and not by the passing ones; 1 is the most suspicious. */
  score: number;
}

const ran = (executed: Executed, path: string, name: string): boolean => {
  const functions = executed[path];
  // Own keys only: `toString` is a function's name here, not Object's method.
  return functions !== undefined && Object.hasOwn(functions, name) && functions[name]! > 0;
};

/**
 * The source functions the failing runs executed, most suspicious first, by Ochiai over runs:
 * failed(f) / sqrt(failed × (failed(f) + passed(f))). A loaded file stands for the source files it
 * is built from (`dist/parse.js` for `src/parse.ts`); a bundle (`dist/index.js` holding every
 * module) also for each source file that defines a function it ran which its namesake source does
 * not. A function is known by the short name V8 gives it, so two methods of one name in one file
 * share a score, and where a bundler renamed them all, every function of the file takes the
 * file's best score. Ties keep source order.
 */
export function suspectsOf(
  failing: readonly Executed[],
  passing: readonly Executed[],
  sourceFiles: readonly string[],
  parsed: (file: string) => SourceFile | null,
): Suspect[] {
  const scores = new Map<string, number>();
  /** Per source file, the best score of a function run from it, whatever its name. */
  const fileScores = new Map<string, number>();
  const keyOf = (file: string, name: string) => `${file}\0${name}`;
  const isSource = new Set(sourceFiles);
  const sourcesOfLoaded = new Map<string, string[]>();
  const builtFrom = (loaded: string) => {
    if (!sourcesOfLoaded.has(loaded))
      sourcesOfLoaded.set(
        loaded,
        sourceFiles.filter((source) => loadedAs(source, [loaded]).length > 0),
      );
    return sourcesOfLoaded.get(loaded)!;
  };
  let definers: Map<string, string[]> | null = null;
  /** The source files that define a function of this name; every source is read once, the first time a bundle asks. */
  const definersOf = (name: string) => {
    if (!definers) {
      definers = new Map();
      for (const file of sourceFiles) {
        const source = parsed(file);
        for (const unit of source ? discoverUnits(source) : []) {
          const files = definers.get(runtimeName(unit.name)) ?? [];
          if (!files.includes(file)) definers.set(runtimeName(unit.name), [...files, file]);
        }
      }
    }
    return definers.get(name) ?? [];
  };
  const sourcesOf = (loaded: string, name: string) => {
    const built = builtFrom(loaded);
    if (isSource.has(loaded) || name === '') return built;
    const defining = definersOf(name);
    // A build's own module (`dist/parse.js`) defines what it runs; a bundle's functions come from elsewhere.
    return built.some((file) => defining.includes(file)) ? built : [...new Set([...built, ...defining])];
  };
  for (const run of failing)
    for (const [path, functions] of Object.entries(run))
      for (const name of Object.keys(functions)) {
        if (!ran(run, path, name)) continue;
        const failed = failing.filter((other) => ran(other, path, name)).length;
        const passed = passing.filter((other) => ran(other, path, name)).length;
        const score = failed / Math.sqrt(failing.length * (failed + passed));
        for (const source of sourcesOf(path, name)) {
          const key = keyOf(source, name);
          scores.set(key, Math.max(scores.get(key) ?? 0, score));
          fileScores.set(source, Math.max(fileScores.get(source) ?? 0, score));
        }
      }
  const suspects: Suspect[] = [];
  for (const file of sourceFiles.filter((each) => fileScores.has(each))) {
    const source = parsed(file);
    if (!source) continue;
    const units = discoverUnits(source);
    // A bundler that renamed the functions (`format` became `f`) leaves no name to match: the file's functions share its score.
    const renamed = units.every((unit) => !scores.has(keyOf(file, runtimeName(unit.name))));
    for (const unit of units) {
      const score = renamed ? fileScores.get(file) : scores.get(keyOf(file, runtimeName(unit.name)));
      if (score !== undefined) suspects.push({ file, unit, score });
    }
  }
  // A stable sort: equal scores stay in file and source order.
  return suspects.sort((a, b) => b.score - a.score);
}

/** The ranges V8 counted in one loaded file, [start, end, count]: an offset's count is that of the innermost range holding it. */
export type Blocks = ReadonlyArray<readonly [number, number, number]>;

/**
 * Whether any of the text from `start` to `end` ran: false only when the innermost ranges holding
 * all of it counted zero and no range that ran begins inside it. An edit there cannot change what
 * the run does. Offsets no range holds are taken to have run.
 */
export function mayHaveRun(blocks: Blocks, start: number, end: number): boolean {
  let innermost: number | null = null;
  let innermostRan = true;
  for (const [from, to, count] of blocks) {
    if (count > 0 && from >= start && from < end && to > start) return true;
    if (from > start || to < end) continue;
    const length = to - from;
    if (innermost === null || length < innermost) {
      innermost = length;
      innermostRan = count > 0;
    } else if (length === innermost && count > 0) innermostRan = true; // the same file loaded by two processes
  }
  return innermostRan;
}
