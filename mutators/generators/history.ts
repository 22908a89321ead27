import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { execa } from 'execa';
import type { CommitOrigin, HistoryFunnel, Site } from '../../pipeline/store/records.js';
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

interface Commit {
  hash: string;
  parents: string[];
  date: string;
  author: string;
  message: string;
  /** Lines added plus lines removed, per path. */
  changed: Map<string, number>;
}

const RECORD = '\x1e';
const FIELD = '\x1f';

/** The first-parent history from the base commit back, newest first, with each commit's changed lines per file. */
async function walk({ dir, base }: HistorySource, depth: number): Promise<Commit[]> {
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
  return log.stdout
    .split(RECORD)
    .slice(1)
    .map((record) => {
      const [hash, parents, date, author, message, numstat] = record.split(FIELD) as [string, string, string, string, string, string];
      const changed = new Map<string, number>();
      for (const line of numstat.split('\n')) {
        const match = /^(\d+|-)\t(\d+|-)\t(.+)$/.exec(line);
        if (match) changed.set(match[3]!, (Number(match[1]) || 0) + (Number(match[2]) || 0));
      }
      return { hash, parents: parents.split(' ').filter(Boolean), date, author, message: message.trim(), changed };
    });
}

/**
 * The base commit's files with a commit's change to them undone, exactly: its patch reverse-applied
 * by git without fuzz (context must match; a hunk may only move). Null when it does not apply.
 */
async function reverted(
  source: HistorySource,
  commit: Commit,
  files: string[],
  read: (file: string) => string,
): Promise<Map<string, string> | null> {
  // Only files the commit modified: a revert that deletes or recreates a file is not a bug in the code.
  const patch = await gitIn(source.dir, [
    'diff',
    '--no-renames',
    '--diff-filter=M',
    '--full-index',
    commit.parents[0]!,
    commit.hash,
    '--',
    ...files,
  ]);
  if (patch.exitCode !== 0 || patch.stdout === '') return null;
  const scratch = await mkdtemp(join(tmpdir(), 'swesynth-revert-'));
  try {
    for (const file of files) {
      await mkdir(dirname(join(scratch, file)), { recursive: true });
      await writeFile(join(scratch, file), read(file));
    }
    const applied = await gitIn(scratch, ['apply', '--reverse', '--whitespace=nowarn', '-'], patch.stdout);
    if (applied.exitCode !== 0) return null;
    return new Map(await Promise.all(files.map(async (file) => [file, await readFile(join(scratch, file), 'utf8')] as const)));
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
    const funnel: HistoryFunnel = {
      walked: 0,
      merges: 0,
      withSourceChange: 0,
      tooLarge: 0,
      formattingOnly: 0,
      applying: 0,
      unavailable: null,
    };
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
    const proposalOf = async (commit: Commit, files: string[], changedTests: boolean): Promise<Proposal | null> => {
      const texts = await reverted(source, commit, files, input.read);
      if (!texts) return null;
      funnel.applying++;
      if (files.every((file) => sameSyntax(file, input.read(file), texts.get(file)!))) {
        funnel.formattingOnly++;
        return null;
      }
      const sites = files.flatMap((file) => sitesOf(file, input.read(file), texts.get(file)!));
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
      const files = [...commit.changed.keys()].filter((path) => sourceFiles.has(path)).sort();
      if (files.length === 0 || commit.parents.length === 0) continue;
      funnel.withSourceChange++;
      if (files.reduce((sum, file) => sum + commit.changed.get(file)!, 0) > input.settings.historyMaxLines) {
        funnel.tooLarge++;
        continue;
      }
      const changedTests = [...commit.changed.keys()].some((path) => isTestPath(input, path));
      const proposal = await proposalOf(commit, files, changedTests);
      if (proposal) ranked.push({ changedTests, proposal });
    }
    // Stable: within each rank, newest first.
    ranked.sort((a, b) => Number(b.changedTests) - Number(a.changedTests));
    for (const { proposal } of ranked) yield proposal;
    input.log.info(
      `history: ${funnel.walked} commits walked, ${funnel.withSourceChange} change source files, ` +
        `${funnel.tooLarge} of them over ${input.settings.historyMaxLines} lines, ${funnel.applying} reverts apply (${funnel.formattingOnly} only reformat)`,
    );
  },
};
