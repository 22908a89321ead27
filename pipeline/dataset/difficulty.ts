import { basename } from 'node:path';
import { z } from 'zod';
import { testFileOf } from '../runners/test-ids.js';
import type { Candidate, CoverageMap, Verdict } from '../store/records.js';
import { loadedAs, runtimeName } from '../validation/test-selection.js';

export const TIERS = ['easy', 'medium', 'hard'] as const;
export const Tier = z.enum(TIERS);
export type Tier = z.infer<typeof Tier>;

const count = z.number().int().min(0);

/**
 * What makes a task hard, measured from execution: the size of its fix, how much of the suite it
 * breaks, how far fault localization over the hidden tests is from the changed code, and whether
 * the statement names it. The tier is read from these by DIFFICULTY_RULE.
 */
export const Difficulty = z.object({
  tier: Tier,
  /** The rule's points for this task: the tier is read from their sum. */
  points: count,
  fix: z.object({ lines: count, sites: count, functions: count, files: count }),
  failToPass: count,
  failingTestFiles: count,
  /**
   * From the coverage setup learned: the functions and source files the failing test files
   * execute, and the worst rank of a changed function among those functions by Ochiai over test
   * files (executed by failing files and not by passing ones; 1 is the most suspicious, and a
   * function tied with others takes the middle of their ranks). rank is null when coverage does not see the changed function (code outside
   * every function, a name a bundler changed); the whole record is null without coverage.
   */
  localization: z.object({ functions: count, files: count, rank: z.number().int().min(1).nullable() }).nullable(),
  /** The statement names every changed function, or its file (on its own, not in a module path). */
  named: z.boolean(),
  /**
   * The repair search's result when the export ran it (`--search`): whether it found a fix within
   * `budget` edits, and the edits it tried (those it took, for a found fix).
   */
  search: z.object({ found: z.boolean(), edits: count, budget: count }).nullable().optional(),
});
export type Difficulty = z.infer<typeof Difficulty>;

/**
 * The tier rule, in one place: each feature that makes a bug harder to find or to fix adds
 * points, and the sum reads as a tier. A one-site bug in a function the statement names scores 0.
 * Fault localization counts only when the statement leaves a changed function unnamed: then the
 * hidden tests' coverage says how far that function is from where the failure points.
 */
export const DIFFICULTY_RULE = {
  /** The statement leaves a changed function unnamed. */
  unnamed: 1,
  /** Each site beyond the first, up to `maxSitePoints`. */
  extraSite: 1,
  maxSitePoints: 2,
  /** The fix changes more than one file. */
  multiFile: 1,
  /** The fix changes more lines than `longFixLines`. */
  longFix: 1,
  longFixLines: 6,
  /** Unnamed, a changed function ranks below `rankAbove` (`belowRank` points) or below `rankFarAbove` (`farBelowRank`). */
  rankAbove: 1,
  rankFarAbove: 5,
  belowRank: 1,
  farBelowRank: 2,
  /** The repair search, when it ran, found no fix within its budget. */
  searchMissed: 1,
  /** The highest sums that still read as easy and as medium; above is hard. */
  easyUpTo: 1,
  mediumUpTo: 3,
} as const;

type Features = Omit<Difficulty, 'tier' | 'points'>;

export function pointsOf(features: Features): number {
  const rule = DIFFICULTY_RULE;
  const rank = features.localization?.rank ?? null;
  return (
    (features.named ? 0 : rule.unnamed) +
    Math.min(rule.maxSitePoints, (features.fix.sites - 1) * rule.extraSite) +
    (features.fix.files > 1 ? rule.multiFile : 0) +
    (features.fix.lines > rule.longFixLines ? rule.longFix : 0) +
    (features.named || rank === null || rank <= rule.rankAbove ? 0 : rank <= rule.rankFarAbove ? rule.belowRank : rule.farBelowRank) +
    (features.search && !features.search.found ? rule.searchMissed : 0)
  );
}

export function tierOf(points: number): Tier {
  return points <= DIFFICULTY_RULE.easyUpTo ? 'easy' : points <= DIFFICULTY_RULE.mediumUpTo ? 'medium' : 'hard';
}

/** Changed lines of a patch: its added and removed lines, headers left out. */
export function changedLines(patch: string): number {
  return patch.split('\n').filter((line) => /^[-+](?![-+]{2} )/.test(line)).length;
}

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Whether the statement names every changed function: by its name as a word, or by its file's base name. */
function namesEvery(statement: string, sites: Candidate['sites']): boolean {
  return sites.every((site) => {
    const name = runtimeName(site.unit);
    const word = /^[\w$]{2,}$/.test(name) && new RegExp(`(?<![\\w$])${escaped(name)}(?![\\w$])`).test(statement);
    // A file named on its own, not as the end of a module path a repro imports (`pkg/src/cart.js`).
    return word || new RegExp(`(?<![\\w$./-])${escaped(basename(site.file))}`).test(statement);
  });
}

/** Fault localization over test files for a task: see Difficulty.localization. */
function localizationOf(coverage: CoverageMap, failingFiles: ReadonlySet<string>, sites: Candidate['sites']): Difficulty['localization'] {
  const measured = coverage.testFiles.filter((test) => test.measured);
  const testFiles = new Set(coverage.testFiles.map((test) => test.file));
  const failing = measured.filter((test) => failingFiles.has(test.file));
  if (failing.length === 0) return null;
  // Own keys only: `toString` is a function's name here, not Object's method.
  const executing = (test: (typeof measured)[number], path: string, name: string) => {
    const functions = test.executed[path];
    return functions !== undefined && Object.hasOwn(functions, name) && functions[name]! > 0;
  };
  const suspects = new Map<string, { path: string; name: string }>();
  for (const test of failing)
    for (const [path, functions] of Object.entries(test.executed)) {
      if (testFiles.has(path)) continue;
      for (const [name, calls] of Object.entries(functions)) if (calls > 0) suspects.set(`${path}\0${name}`, { path, name });
    }
  const score = ({ path, name }: { path: string; name: string }) => {
    const executedByFailing = failing.filter((test) => executing(test, path, name)).length;
    const executedByPassing = measured.filter((test) => !failingFiles.has(test.file) && executing(test, path, name)).length;
    return executedByFailing === 0 ? 0 : executedByFailing / Math.sqrt(failing.length * (executedByFailing + executedByPassing));
  };
  const scores = [...suspects.values()].map(score);
  const loaded = [...new Set([...suspects.values()].map((suspect) => suspect.path))];
  const ranks = sites.flatMap((site) => {
    const name = runtimeName(site.unit);
    const found = loadedAs(site.file, loaded).filter((path) => suspects.has(`${path}\0${name}`));
    if (found.length === 0) return [];
    const best = Math.max(...found.map((path) => score({ path, name })));
    const tied = scores.filter((other) => other === best).length;
    return [scores.filter((other) => other > best).length + Math.ceil(tied / 2)];
  });
  return { functions: suspects.size, files: loaded.length, rank: ranks.length === 0 ? null : Math.max(...ranks) };
}

/** The difficulty with the repair search's result among its features, its points and tier read again. */
export function withSearch(difficulty: Difficulty, search: NonNullable<Difficulty['search']>): Difficulty {
  const features: Features = { ...difficulty, search };
  const points = pointsOf(features);
  return { ...features, tier: tierOf(points), points };
}

/** A kept task's difficulty, from its candidate, its verdict, its statement and the coverage setup learned (null without). */
export function difficultyOf(
  candidate: Pick<Candidate, 'sites' | 'fixPatch'>,
  verdict: Pick<Verdict, 'failToPass'>,
  statement: string,
  coverage: CoverageMap | null,
): Difficulty {
  const { sites } = candidate;
  const files = [...new Set(sites.map((site) => site.file))];
  const functions = [...new Set(sites.map((site) => `${site.file}\0${site.unit}`))];
  const failingFiles = new Set(verdict.failToPass.map(testFileOf));
  const features: Features = {
    fix: { lines: changedLines(candidate.fixPatch), sites: sites.length, functions: functions.length, files: files.length },
    failToPass: verdict.failToPass.length,
    failingTestFiles: failingFiles.size,
    localization: coverage ? localizationOf(coverage, failingFiles, sites) : null,
    named: namesEvery(statement, sites),
  };
  const points = pointsOf(features);
  return { tier: tierOf(points), points, ...features };
}
