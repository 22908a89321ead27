import type { BatchDataset, RepoOutcome } from './state.js';

export const BATCH_COLUMNS = ['repository', 'runner', 'package manager', 'workspace', 'build', 'tests', 'candidates', 'tasks'];

const known = (value: string | number | null) => (value === null ? '—' : String(value));

/** A repository's row: what init and its run found, and its tasks or the stage that failed and why. */
export function batchRow(outcome: RepoOutcome): string[] {
  return [
    outcome.repo ?? outcome.entry.given,
    outcome.runners.length > 0 ? outcome.runners.join(', ') : '—',
    known(outcome.packageManager),
    outcome.workspace === null ? '—' : outcome.workspace ? 'yes' : 'no',
    outcome.workspace === null ? '—' : (outcome.build ?? 'none'),
    known(outcome.tests),
    known(outcome.candidates),
    outcome.failure ? `failed at ${outcome.failure.stage}: ${outcome.failure.message}` : known(outcome.tasks),
  ];
}

/** The dataset line under the table. */
export function datasetLine(dataset: BatchDataset | null): string {
  return dataset
    ? `dataset: ${dataset.path}: ${dataset.instances} tasks from ${dataset.profiles.length} ${dataset.profiles.length === 1 ? 'repository' : 'repositories'}`
    : 'dataset: none, as no repository gave tasks';
}

/** A Markdown table (readable as plain text too) of the repositories of a batch, and its dataset. */
export function batchTable(outcomes: readonly RepoOutcome[], dataset: BatchDataset | null): string {
  const rows = outcomes.map(batchRow);
  const widths = BATCH_COLUMNS.map((name, i) => Math.max(name.length, ...rows.map((row) => row[i]!.length)));
  const line = (values: string[]) => `| ${values.map((value, i) => value.padEnd(widths[i]!)).join(' | ')} |`;
  return [
    line(BATCH_COLUMNS),
    `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`,
    ...rows.map(line),
    '',
    datasetLine(dataset),
  ].join('\n');
}
