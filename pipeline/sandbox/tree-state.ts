import { copyFileSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** Folders a test run is not expected to write, and too large to look through after every run. */
const NOT_LOOKED_AT = new Set(['node_modules', '.git']);

type Entry = { kind: 'file'; size: number; mtimeMs: number } | { kind: 'dir' } | { kind: 'link'; target: string };

const DIR: Entry = { kind: 'dir' };

function entryAt(path: string): Entry | undefined {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return undefined;
  if (stat.isDirectory()) return DIR;
  if (stat.isSymbolicLink()) return { kind: 'link', target: readlinkSync(path) };
  return { kind: 'file', size: stat.size, mtimeMs: stat.mtimeMs };
}

/** Every file, folder and link under `root` (node_modules and .git left out), by path relative to it, parents first. */
function entriesOf(root: string): Map<string, Entry> {
  const entries = new Map<string, Entry>();
  const walk = (relative: string) => {
    for (const dirent of readdirSync(join(root, relative), { withFileTypes: true })) {
      if (NOT_LOOKED_AT.has(dirent.name)) continue;
      const path = relative ? `${relative}/${dirent.name}` : dirent.name;
      // Only a file's size and time need a call of their own.
      const entry = dirent.isDirectory() ? DIR : entryAt(join(root, path));
      if (!entry) continue;
      entries.set(path, entry);
      if (entry === DIR) walk(path);
    }
  };
  walk('');
  return entries;
}

function sameEntry(a: Entry, b: Entry | undefined): boolean {
  if (a.kind === 'file') return b?.kind === 'file' && a.size === b.size && a.mtimeMs === b.mtimeMs;
  if (a.kind === 'link') return b?.kind === 'link' && a.target === b.target;
  return b?.kind === 'dir';
}

/**
 * The files of a copy of a clean tree as they were when it was made. Tests write files (a locale,
 * a fixture, a cache in the repository): a mutant's run can leave them other than a clean run
 * would, and the next run in the copy, the fix's or another candidate's, must start from what the
 * baseline started from. `undo` puts back what changed since, from the clean tree.
 */
export class TreeState {
  private constructor(
    private readonly copy: string,
    private readonly clean: string,
    private readonly entries: Map<string, Entry>,
  ) {}

  static of(copy: string, clean: string): TreeState {
    return new TreeState(copy, clean, entriesOf(copy));
  }

  /** Puts back every file, folder and link that differs from the clean tree's; returns their paths. */
  undo(): string[] {
    const now = entriesOf(this.copy);
    const undone: string[] = [];
    const at = (path: string) => join(this.copy, path);
    // Children first, so that a new folder is empty, or gone, when its turn comes.
    for (const path of [...now.keys()].reverse()) {
      if (this.entries.has(path)) continue;
      rmSync(at(path), { recursive: true, force: true });
      undone.push(path);
    }
    for (const [path, was] of this.entries) {
      const is = now.get(path);
      if (sameEntry(was, is)) continue;
      // Written again with what it held (a clean source put back, an unchanged build output): only its time changed.
      if (was.kind === 'file' && is?.kind === 'file' && was.size === is.size && this.sameAsClean(path)) {
        this.entries.set(path, is);
        continue;
      }
      if (is) rmSync(at(path), { recursive: true, force: true });
      if (was.kind === 'dir') mkdirSync(at(path), { recursive: true });
      else {
        mkdirSync(dirname(at(path)), { recursive: true });
        if (was.kind === 'link') symlinkSync(was.target, at(path));
        else copyFileSync(join(this.clean, path), at(path));
      }
      this.entries.set(path, entryAt(at(path))!);
      undone.push(path);
    }
    return undone;
  }

  private sameAsClean(path: string): boolean {
    return readFileSync(join(this.clean, path)).equals(readFileSync(join(this.copy, path)));
  }
}
