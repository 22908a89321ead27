import type { RepoFacts } from '../repo/facts.js';
import type { DetectedTests, RunnerDetection } from './types.js';

/**
 * Pieces the runners' detections share: recognizing a runner by its executable, and turning
 * the files, folders and globs of a command line into test globs.
 */

/** Recognizes `bin [subcommand] args`: `runs` subcommands are dropped, `other` ones are not test runs. */
export function recognizeBins(bins: string[], subcommands: { runs?: string[]; other?: string[] } = {}): RunnerDetection['recognize'] {
  return (words) => {
    if (!bins.includes(words[0] ?? '')) return null;
    const rest = words.slice(1);
    if (subcommands.other?.includes(rest[0] ?? '')) return null;
    if (subcommands.runs?.includes(rest[0] ?? '')) rest.shift();
    return rest;
  };
}

const HAS_GLOB = /[*?{[]/;
const HAS_EXTENSION = /\.[cm]?[jt]sx?$/;

/** A path with no glob and no script extension names a folder (perhaps one the build has yet to write). */
export function isFolder(path: string): boolean {
  return !HAS_GLOB.test(path) && !HAS_EXTENSION.test(path);
}

export function normalizePath(path: string): string {
  return path
    .replace(/^\.\//, '')
    .replace(/\/+$/, '')
    .replace(/^<rootDir>(\/|$)/, '');
}

/**
 * The globs a command line's positional words stand for: files and globs as they are, a folder as
 * the `inFolder` patterns under it. Null when there are none.
 */
export function positionalTests(positional: string[], inFolder: string[]): DetectedTests | null {
  const paths = positional.map(normalizePath).filter((path) => path !== '' && path !== '.');
  if (paths.length === 0) return null;
  const tests = paths.flatMap((path) => (isFolder(path) ? inFolder.map((pattern) => `${path}/${pattern}`) : [path]));
  return { tests, source: `the test script's arguments (${positional.join(' ')})` };
}

/** Files whose path fits one of the regular expressions, matched as runners match them: against an absolute path. */
export function filesMatching(facts: RepoFacts, patterns: string[], candidates = ['**/*.{js,jsx,ts,tsx,mjs,cjs,mts,cts}']): string[] {
  const expressions = patterns.flatMap((pattern) => {
    try {
      return [new RegExp(pattern)];
    } catch {
      return [];
    }
  });
  // The repository's folder stands before the file: `./src/` needs a character before `/src`.
  return facts.glob(candidates).filter((file) => expressions.some((expression) => expression.test(`/repository/${file}`)));
}

/** A value that is a string or a list of strings, as configs write globs; anything else reads as none. */
export function stringList(value: unknown): string[] {
  const list = Array.isArray(value) ? value : [value];
  return list.filter((item): item is string => typeof item === 'string');
}
