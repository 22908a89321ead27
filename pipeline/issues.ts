import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { mutatedFiles } from './candidates.js';
import type { StageContext, StageResult } from './context.js';
import { writeStatement } from './problem-statement.js';
import type { Candidate, FailedTest } from './records.js';
import { environmentOf } from './setup.js';

function linesAround(text: string, start: number, end: number): string[] {
  const from = text.lastIndexOf('\n', start - 1) + 1;
  const to = text.indexOf('\n', end);
  return text.slice(from, to === -1 ? text.length : to).split('\n');
}

/** What a statement must never show: the tests' titles and files, and the changed lines before and after. */
function forbiddenFor(candidate: Candidate, failed: FailedTest[], read: (file: string) => string): string[] {
  const mutated = mutatedFiles(candidate.sites, read);
  const changedLines = candidate.sites.flatMap((site) => {
    // Where the site's replacement sits in the mutated text: shifted by the edits before it.
    const shift = candidate.sites
      .filter((other) => other.file === site.file && other.start < site.start)
      .reduce((sum, other) => sum + other.replacement.length - (other.end - other.start), 0);
    return [
      ...linesAround(read(site.file), site.start, site.end),
      ...linesAround(mutated.get(site.file)!, site.start + shift, site.start + shift + site.replacement.length),
    ];
  });
  return [...failed.flatMap((test) => [test.titlePath.at(-1) ?? '', test.file, basename(test.file)]), ...changedLines];
}

/** Issues: a problem statement for every kept candidate, from its failing assertions. */
export async function issues(ctx: StageContext): Promise<StageResult> {
  const { store, log } = ctx;
  const done = store.stageSummary('issues');
  if (done) return { stage: 'issues', alreadyDone: true, ...done };
  if (!store.stageSummary('validate')) throw new Error('issues needs the verdicts of the validate stage');

  const { workspace } = environmentOf(ctx);
  const read = (file: string): string | undefined => {
    try {
      return readFileSync(join(workspace, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const kept = new Set(store.verdicts().filter((verdict) => verdict.status === 'kept').map((verdict) => verdict.candidateId));
  const written = new Set(store.issues().map((issue) => issue.candidateId));
  for (const candidate of store.candidates()) {
    if (!kept.has(candidate.id) || written.has(candidate.id)) continue;
    const failed = store.failedTests(candidate.id);
    const statement = writeStatement({ failed, readTest: read, forbidden: forbiddenFor(candidate, failed, (file) => read(file) ?? '') });
    if ('rejected' in statement) {
      store.saveIssue({ candidateId: candidate.id, status: 'rejected', title: '', body: '', reason: statement.rejected });
    } else {
      store.saveIssue({ candidateId: candidate.id, status: 'written', ...statement });
    }
  }
  const all = store.issues();
  const summary = { written: all.filter((issue) => issue.status === 'written').length, rejected: all.filter((issue) => issue.status === 'rejected').length };
  store.finishStage('issues', summary);
  log.info(`issues: ${summary.written} problem statements written, ${summary.rejected} rejected`);
  return { stage: 'issues', alreadyDone: false, ...summary };
}
