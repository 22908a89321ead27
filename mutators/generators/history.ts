import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import { emptyHistoryFunnel, type CommitOrigin, type Site } from '../../pipeline/store/records.js';
import { lineEdits } from '../diff.js';
import { lineAt } from '../edits.js';
import { whyNotMutable } from '../eligibility.js';
import { parseSource, sameSyntax } from '../parse.js';
import { discoverUnits } from '../units.js';
import type { Unit } from '../types.js';
import { unitKeyOf, type BugGenerator, type GeneratorInput, type Proposal } from './types.js';

export const HISTORY = 'history';
export const REVERT = 'revert';
/** The unit of a change outside every function. */
export const TOP_LEVEL = '(top level)';

/** Where a run's history is read: the repository the workspace was cloned from, or the working tree copied. */
export interface HistorySource {
  /** A git repository whose history leads to the base commit. */
  dir: string;
  /** The base commit in `dir`. */
  base: string;
}

async function gitIn(dir: string, args: string[], input?: string) {
  // No repository above a temporary folder may be taken for this one.
  return execa('git', args, { cwd: dir, reject: false, input, env: { GIT_CEILING_DIRECTORIES: dirname(dir) }, stripFinalNewline: false });
}

/** The history a walk can use, or why there is none: not a git repository, or a shallow clone. */
export async function historyOf(dir: string, what: string): Promise<HistorySource | { unavailable: string }> {
  const top = await gitIn(dir, ['rev-parse', '--show-toplevel']);
  if (top.exitCode !== 0 || top.stdout.trim() !== (await realpath(dir))) {
    return {
      unavailable:
        `${what} is not a git repository (nor the top folder of one), so there are no commits to revert; ` +
        'pass a clone with its full history',
    };
  }
  const shallow = await gitIn(dir, ['rev-parse', '--is-shallow-repository']);
  if (shallow.stdout.trim() === 'true') {
    return {
      unavailable:
        `${what} is a shallow clone, so its history is cut short; ` +
        'fetch the full history (git fetch --unshallow) or clone without --depth',
    };
  }
  const base = await gitIn(dir, ['rev-parse', 'HEAD']);
  if (base.exitCode !== 0) return { unavailable: `${what} has no commits; pass a clone with its full history` };
  return { dir, base: base.stdout.trim() };
}

/** A file a commit modified, and where it stands at the base commit. */
interface ChangedFile {
  /** The path in the commit. */
  path: string;
  /** The path at the base commit, through the renames since; null when the file was deleted since. */
  atBase: string | null;
  /** Lines added plus lines removed. */
  lines: number;
}

interface Commit {
  hash: string;
  parents: string[];
  date: string;
  author: string;
  message: string;
  changed: ChangedFile[];
}

/** How a commit moved files: a rename (from → to), an addition (null → to) or a deletion (from → null). */
interface Move {
  from: string | null;
  to: string | null;
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/** The moves of each first-parent commit (merges against their first parent), by hash. */
async function movesOf({ dir, base }: HistorySource, depth: number): Promise<Map<string, Move[]>> {
  // One log for the whole walk: a diff per commit against the base would cost a rename search each.
  const log = await gitIn(dir, [
    'log',
    '--first-parent',
    '-M',
    '--name-status',
    '-z',
    `--max-count=${depth}`,
    `--format=${RECORD}%H`,
    base,
  ]);
  if (log.exitCode !== 0) throw new Error(`git log failed in ${dir}: ${log.stderr.trim()}`);
  const moves = new Map<string, Move[]>();
  for (const record of log.stdout.split(RECORD).slice(1)) {
    const [hash = '', ...fields] = record.replace('\0\n', '\0').split('\0');
    const commitMoves: Move[] = [];
    for (let i = 0; i < fields.length && fields[i] !== '';) {
      const status = fields[i]![0];
      if (status === 'R') commitMoves.push({ from: fields[i + 1]!, to: fields[i + 2]! });
      else if (status === 'A') commitMoves.push({ from: null, to: fields[i + 1]! });
      else if (status === 'D') commitMoves.push({ from: fields[i + 1]!, to: null });
      i += status === 'R' || status === 'C' ? 3 : 2;
    }
    moves.set(hash, commitMoves);
  }
  return moves;
}

/**
 * The first-parent history from the base commit back, newest first, with each commit's changed lines per file
 * and the paths of those files at the base commit.
 */
async function walk(source: HistorySource, depth: number): Promise<Commit[]> {
  const { dir, base } = source;
  const log = await gitIn(dir, [
    'log',
    '--first-parent',
    '--no-renames',
    '--numstat',
    `--max-count=${depth}`,
    `--format=${RECORD}%H${FIELD}%P${FIELD}%aI${FIELD}%an${FIELD}%B${FIELD}`,
    base,
  ]);
  if (log.exitCode !== 0) throw new Error(`git log failed in ${dir}: ${log.stderr.trim()}`);
  const moves = await movesOf(source, depth);
  // A path in the tree of the commit being read, at the base commit; a path absent has not moved.
  const atBase = new Map<string, string | null>();
  const follow = (path: string) => (atBase.has(path) ? atBase.get(path)! : path);
  return log.stdout
    .split(RECORD)
    .slice(1)
    .map((record) => {
      const [hash, parents, date, author, message, numstat] = record.split(FIELD) as [string, string, string, string, string, string];
      const changed: ChangedFile[] = [];
      for (const line of numstat.split('\n')) {
        const match = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
        if (match) changed.push({ path: match[3]!, atBase: follow(match[3]!), lines: (Number(match[1]) || 0) + (Number(match[2]) || 0) });
      }
      // Step back past the commit: its parent's tree had each renamed file at its old path, and not the files it added.
      const steps = (moves.get(hash) ?? []).map((move) => [move.from, move.to && follow(move.to)] as const);
      for (const { to } of moves.get(hash) ?? []) if (to !== null) atBase.set(to, null);
      for (const [from, to] of steps) if (from !== null) atBase.set(from, to);
      return { hash, parents: parents.split(' ').filter(Boolean), date, author, message: message.trim(), changed };
    });
}

/**
 * The base commit's files with a commit's change to them undone, as `git revert` undoes it: per
 * file, a three-way merge of the base text with the file before the commit, from the file after
 * it (`git merge-file`). The lines the commit changed must be there unchanged; lines edited since
 * around them do not stop it, and a conflict refuses the revert: nothing is applied by guesswork.
 * Null when a file does not revert cleanly.
 */
async function reverted(
  source: HistorySource,
  commit: Commit,
  files: ReadonlyArray<ChangedFile & { atBase: string }>,
  read: (file: string) => string,
): Promise<Map<string, string> | null> {
  const scratch = await mkdtemp(join(tmpdir(), 'swesynth-revert-'));
  try {
    const texts = new Map<string, string>();
    for (const [index, file] of files.entries()) {
      const [before, after] = await Promise.all(
        [commit.parents[0]!, commit.hash].map((revision) => gitIn(source.dir, ['show', `${revision}:${file.path}`])),
      );
      // Only files the commit modified: a revert that deletes or recreates a file is not a bug in the code.
      if (before!.exitCode !== 0 || after!.exitCode !== 0) continue;
      const [current, ancestor, other] = ['current', 'ancestor', 'other'].map((name) => join(scratch, `${index}.${name}`));
      await Promise.all([writeFile(current!, read(file.atBase)), writeFile(ancestor!, after!.stdout), writeFile(other!, before!.stdout)]);
      const merged = await gitIn(scratch, ['merge-file', '-p', '--quiet', current!, ancestor!, other!]);
      if (merged.exitCode !== 0) return null;
      texts.set(file.atBase, merged.stdout);
    }
    return texts.size > 0 ? texts : null;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The innermost unit holding an edit, or null when it lies outside every function. */
function unitAround(units: readonly Unit[], line: number, endLine: number): Unit | null {
  const holding = units.filter((unit) => unit.startLine <= line && endLine <= unit.endLine);
  return holding.sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0] ?? null;
}

/** The revert's edits to one file as sites, each attributed to the unit around it. */
function sitesOf(file: string, before: string, after: string): Site[] {
  const units = discoverUnits(parseSource(file, before));
  return lineEdits(before, after).map((edit) => {
    const startLine = lineAt(before, edit.start);
    const endLine = lineAt(before, Math.max(edit.start, edit.end - 1));
    const unit = unitAround(units, startLine, endLine);
    return {
      file,
      operator: REVERT,
      unit: unit?.name ?? TOP_LEVEL,
      ...edit,
      original: before.slice(edit.start, edit.end),
      startLine,
      endLine,
    };
  });
}

const isTestPath = (input: GeneratorInput, path: string) => input.testFiles.has(path) || whyNotMutable(path, '') === 'a test file';

/**
 * Real bugs from the repository's own history: each first-parent commit whose change to source
 * files is small and more than formatting, reverted on the base commit's tree. Commits that
 * changed tests too come first, as the likeliest fixes.
 */
export const historyGenerator: BugGenerator = {
  name: HISTORY,
  description: "the repository's own commits, their source change reverted on the base commit",
  stage: 'mutate',
  budget: HISTORY,
  sampling: 'ranked',
  strategies: () => [{ strategy: REVERT, family: HISTORY }],
  enabled: (settings) => settings.sources.includes('history'),
  async *propose(input) {
    const funnel = emptyHistoryFunnel();
    input.report.history = funnel;
    // A clone in the workspace has the history; a working tree copied into it has none, but the folder it came from may.
    const { location, cloned } = input.repository;
    const source = await historyOf(cloned ? input.workspace : location, location);
    if ('unavailable' in source) {
      funnel.unavailable = source.unavailable;
      input.log.warn(`history: ${source.unavailable}`);
      return;
    }
    const sourceFiles = new Set(input.sourceFiles);
    const ranked: Array<{ changedTests: boolean; proposal: Proposal }> = [];
    const proposalOf = async (
      commit: Commit,
      files: ReadonlyArray<ChangedFile & { atBase: string }>,
      changedTests: boolean,
    ): Promise<Proposal | null> => {
      const texts = (await reverted(source, commit, files, input.read)) ?? new Map<string, string>();
      // A change undone since reverts to the base text itself: there is nothing to revert.
      const paths = [...texts.keys()].filter((path) => texts.get(path) !== input.read(path));
      if (paths.length === 0) return null;
      funnel.applying++;
      if (paths.every((path) => sameSyntax(path, input.read(path), texts.get(path)!))) {
        funnel.formattingOnly++;
        return null;
      }
      const sites = paths.flatMap((path) => sitesOf(path, input.read(path), texts.get(path)!));
      const [subject = ''] = commit.message.split('\n');
      const origin: CommitOrigin = {
        kind: 'commit',
        hash: commit.hash,
        date: commit.date,
        subject,
        message: commit.message,
        author: commit.author,
        changedTests,
      };
      return {
        provenance: { generator: HISTORY, strategy: REVERT, family: HISTORY, units: [...new Set(sites.map((site) => site.unit))], origin },
        sites,
        unitKey: unitKeyOf(sites[0]!.file, sites[0]!.unit, sites[0]!.startLine),
      };
    };
    for (const commit of await walk(source, input.settings.historyDepth)) {
      funnel.walked++;
      if (commit.parents.length > 1) {
        funnel.merges++;
        continue;
      }
      // A file deleted since has no path at the base commit, so no source file there.
      const files = commit.changed
        .filter((file): file is ChangedFile & { atBase: string } => file.atBase !== null && sourceFiles.has(file.atBase))
        .sort((a, b) => (a.atBase < b.atBase ? -1 : 1));
      if (files.length === 0 || commit.parents.length === 0) continue;
      funnel.withSourceChange++;
      if (files.some((file) => file.path !== file.atBase)) funnel.renamed++;
      if (files.reduce((sum, file) => sum + file.lines, 0) > input.settings.historyMaxLines) {
        funnel.tooLarge++;
        continue;
      }
      const changedTests = commit.changed.some((file) => isTestPath(input, file.atBase ?? file.path));
      const proposal = await proposalOf(commit, files, changedTests);
      if (proposal) ranked.push({ changedTests, proposal });
    }
    // Stable: within each rank, newest first.
    ranked.sort((a, b) => Number(b.changedTests) - Number(a.changedTests));
    for (const { proposal } of ranked) yield proposal;
    input.log.info(
      `history: ${funnel.walked} commits walked, ${funnel.withSourceChange} change source files (${funnel.renamed} at paths since renamed), ` +
        `${funnel.tooLarge} of them over ${input.settings.historyMaxLines} lines, ${funnel.applying} reverts apply (${funnel.formattingOnly} only reformat)`,
    );
  },
};
