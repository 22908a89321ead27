import type { SolveReport, SolveShare } from './solve.js';

/** What grading said of the search's fixes (see solveDataset). */
export interface GradingSummary {
  resolved: number;
  rate: number;
  low: number;
  high: number;
  claimedUnresolved: string[];
  /** Tasks resolved per strategy. */
  resolvedByStrategy: Record<string, number>;
}

const percent = (part: number, whole: number) => (whole === 0 ? '–' : `${Math.round((part / whole) * 100)}%`);

/** The search's shares per strategy and in all, as a text table, with the graded rate when there is one. */
export function solveTable(report: SolveReport, grading: GradingSummary | null): string {
  const header = [
    'strategy',
    'tasks',
    `fixed ≤${report.early} edits`,
    `fixed ≤${report.budget} edits`,
    ...(grading ? ['resolved (eval)'] : []),
    'no oracle',
    'median time',
  ];
  const row = (name: string, share: SolveShare, resolved: number | undefined) => [
    name,
    String(share.tasks),
    `${share.withinEarly} (${percent(share.withinEarly, share.tasks)})`,
    `${share.withinBudget} (${percent(share.withinBudget, share.tasks)})`,
    ...(resolved === undefined ? [] : [`${resolved} (${percent(resolved, share.tasks)})`]),
    String(share.noOracle),
    `${(share.medianMs / 1000).toFixed(1)} s`,
  ];
  const rows = [
    header,
    ...Object.entries(report.byStrategy).map(([name, share]) => row(name, share, grading?.resolvedByStrategy[name])),
    row('all', report.total, grading?.resolved),
  ];
  const widths = header.map((_, column) => Math.max(...rows.map((cells) => cells[column]!.length)));
  const lines = rows.map((cells) =>
    cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!))).join('  '),
  );
  lines.push(`searched in ${(report.durationMs / 1000).toFixed(0)} s (learning coverage ${(report.coverageMs / 1000).toFixed(0)} s)`);
  if (grading) {
    const share = (value: number) => `${(value * 100).toFixed(1)}%`;
    lines.push(
      `graded as eval grades: resolved ${grading.resolved} of ${report.total.tasks}, ${share(grading.rate)} (95% CI ${share(grading.low)} – ${share(grading.high)}); the search claimed ${report.total.withinBudget}`,
    );
    if (grading.claimedUnresolved.length > 0)
      lines.push(`its repro or visible tests passed but a hidden test fails: ${grading.claimedUnresolved.join(', ')}`);
  }
  return lines.join('\n');
}
