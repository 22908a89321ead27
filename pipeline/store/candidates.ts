import { createHash } from 'node:crypto';
import { unifiedDiff } from '../../mutators/diff.js';
import { applyEdits } from '../../mutators/edits.js';
import type { Candidate, Site } from './records.js';

/** The files a candidate changes, in the order its sites name them. */
export function filesOf(sites: readonly Site[]): string[] {
  return [...new Set(sites.map((site) => site.file))];
}

/** Each changed file's text with the candidate's bugs in it. */
export function mutatedFiles(sites: readonly Site[], originalOf: (file: string) => string): Map<string, string> {
  return new Map(
    filesOf(sites).map((file) => [
      file,
      applyEdits(
        originalOf(file),
        sites.filter((site) => site.file === file),
      ),
    ]),
  );
}

/** The patch that introduces the bugs and the one that repairs them, a diff per changed file. */
export function patchesOf(sites: readonly Site[], originalOf: (file: string) => string): Pick<Candidate, 'bugPatch' | 'fixPatch'> {
  const mutated = mutatedFiles(sites, originalOf);
  let bugPatch = '';
  let fixPatch = '';
  for (const [file, text] of mutated) {
    bugPatch += unifiedDiff(file, originalOf(file), text);
    fixPatch += unifiedDiff(file, text, originalOf(file));
  }
  return { bugPatch, fixPatch };
}

/** A candidate's id: a hash of its operator and its edits, the same in every run that makes it. */
export function candidateId(operator: string, sites: readonly Site[]): string {
  const hash = createHash('sha256').update(operator);
  for (const site of sites) hash.update(`\0${site.file}\0${site.operator}\0${site.start}\0${site.end}\0${site.replacement}`);
  return hash.digest('hex').slice(0, 12);
}
