import { historyLine, type FunnelRow, type Stats } from './stats.js';

const escape = (text: string) => text.replace(/[&<>"]/g, (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[char]!);
const percent = (value: number) => `${(value * 100).toFixed(1)}%`;

const OUTCOMES: Array<{ name: string; color: string; count: (row: FunnelRow) => number }> = [
  { name: 'kept', color: '#2e7d32', count: (row) => row.kept },
  { name: 'killed, not kept', color: '#9ccc65', count: (row) => row.killed - row.kept },
  { name: 'survived', color: '#bdbdbd', count: (row) => row.survived },
  { name: 'timed out', color: '#ef6c00', count: (row) => row.timedOut },
  { name: 'out of memory', color: '#ad1457', count: (row) => row.outOfMemory },
  { name: 'other', color: '#6d4c41', count: (row) => row.validated - row.killed - row.survived - row.timedOut - row.outOfMemory },
];

/**
 * One bar per operator, best yield first: the bar splits the validated candidates by outcome, and
 * a black whisker marks the yield's 95% interval on the same 0–100% scale.
 */
function chart(rows: readonly FunnelRow[]): string {
  const sorted = rows.filter((row) => row.validated > 0).sort((a, b) => b.yield - a.yield);
  const label = 190;
  const width = 520;
  const height = 22;
  const top = 28;
  const x = (share: number) => label + share * width;
  const bars = sorted.map((row, i) => {
    const y = top + i * height;
    let offset = 0;
    const segments = OUTCOMES.map((outcome) => {
      const share = outcome.count(row) / row.validated;
      const rect =
        share > 0
          ? `<rect x="${x(offset).toFixed(1)}" y="${y + 3}" width="${(share * width).toFixed(1)}" height="${height - 6}" fill="${outcome.color}"><title>${escape(row.operator)}: ${outcome.name} ${outcome.count(row)} of ${row.validated}</title></rect>`
          : '';
      offset += share;
      return rect;
    }).join('');
    const whisker = `<line x1="${x(row.low).toFixed(1)}" x2="${x(row.high).toFixed(1)}" y1="${y + height / 2}" y2="${y + height / 2}" stroke="#000" stroke-width="1.5"/><circle cx="${x(row.yield).toFixed(1)}" cy="${y + height / 2}" r="2.5"/>`;
    return `<text x="${label - 8}" y="${y + height / 2 + 4}" text-anchor="end">${escape(row.operator)}</text>${segments}${whisker}<text x="${x(1) + 8}" y="${y + height / 2 + 4}">${percent(row.yield)} (n=${row.validated})</text>`;
  });
  const ticks = [0, 0.25, 0.5, 0.75, 1].map(
    (share) =>
      `<line x1="${x(share)}" x2="${x(share)}" y1="${top - 4}" y2="${top + sorted.length * height}" stroke="#e0e0e0"/><text x="${x(share)}" y="${top - 8}" text-anchor="middle">${share * 100}%</text>`,
  );
  const legend = OUTCOMES.map(
    (outcome, i) =>
      `<rect x="${label + i * 110}" y="${top + sorted.length * height + 12}" width="12" height="12" fill="${outcome.color}"/><text x="${label + i * 110 + 16}" y="${top + sorted.length * height + 22}">${outcome.name}</text>`,
  );
  const svgHeight = top + sorted.length * height + 40;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${label + width + 130}" height="${svgHeight}" font-family="system-ui, sans-serif" font-size="12">${ticks.join('')}${bars.join('')}${legend.join('')}</svg>`;
}

function table(rows: readonly FunnelRow[], total: FunnelRow, first: string): string {
  const head = [
    first,
    'proposed',
    'parse-valid',
    'type-valid',
    'validated',
    'killed',
    'timed out',
    'out of memory',
    'survived',
    'kept',
    'tasks',
    'leaky',
    'run repro',
    'easy/medium/hard',
    'yield',
    '95% CI',
  ];
  const cells = (row: FunnelRow) => [
    escape(row.operator),
    row.proposed,
    row.parseValid,
    row.typeChecked === 0 ? '—' : `${row.typeValid}/${row.typeChecked}`,
    row.validated,
    row.killed,
    row.timedOut,
    row.outOfMemory,
    row.survived,
    row.kept,
    row.tasks,
    row.rejected,
    row.repros,
    `${row.easy}/${row.medium}/${row.hard}`,
    row.validated === 0 ? '—' : percent(row.yield),
    row.validated === 0 ? '—' : `${percent(row.low)} – ${percent(row.high)}`,
  ];
  const line = (values: Array<string | number>, tag = 'td') => `<tr>${values.map((value) => `<${tag}>${value}</${tag}>`).join('')}</tr>`;
  return `<table><thead>${line(head, 'th')}</thead><tbody>${rows.map((row) => line(cells(row))).join('')}</tbody><tfoot>${line(cells({ ...total, operator: 'all' }))}</tfoot></table>`;
}

/** A table of text cells that a command puts above the funnel, such as the repositories of a batch. */
export interface TextTable {
  heading: string;
  columns: string[];
  rows: string[][];
  note?: string;
}

function textTable({ heading, columns, rows, note }: TextTable): string {
  const line = (values: string[], tag = 'td') => `<tr>${values.map((value) => `<${tag}>${escape(value)}</${tag}>`).join('')}</tr>`;
  return `<h2>${escape(heading)}</h2>
<table class="text"><thead>${line(columns, 'th')}</thead><tbody>${rows.map((row) => line(row)).join('')}</tbody></table>
${note ? `<p>${escape(note)}</p>` : ''}`;
}

/** A self-contained HTML report (no scripts, no external files) of a stats result, with `tables` first. */
export function statsHtml(stats: Stats, title: string, tables: readonly TextTable[] = []): string {
  const { total } = stats.overall;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escape(title)}</title>
<style>
body { font-family: system-ui, sans-serif; margin: 2rem; color: #212121; max-width: 1100px; }
table { border-collapse: collapse; margin: 1rem 0 2rem; font-size: 13px; }
th, td { padding: 4px 10px; border-bottom: 1px solid #e0e0e0; text-align: right; }
th:first-child, td:first-child { text-align: left; }
tfoot td { font-weight: 600; border-top: 2px solid #9e9e9e; }
.headline { font-size: 1.2rem; }
table.text td { text-align: left; }
</style></head><body>
<h1>${escape(title)}</h1>
<p class="headline">${total.kept} kept of ${total.validated} validated candidates: yield <strong>${percent(total.yield)}</strong> (95% CI ${percent(total.low)} – ${percent(total.high)}), ${total.tasks} tasks, over ${stats.repos.length} ${stats.repos.length === 1 ? 'repository' : 'repositories'}.</p>
${tables.map(textTable).join('\n')}
<h2>Yield by operator</h2>
${chart(stats.overall.operators)}
<h2>Funnel by operator</h2>
${table(stats.overall.operators, total, 'operator')}
<h2>Funnel by bug source</h2>
${table(stats.overall.generators, total, 'source')}
${stats.overall.history ? `<p>${escape(historyLine(stats.overall.history))}.</p>` : ''}
<h2>By repository</h2>
${table(
  stats.repos.map((repo) => ({ ...repo.total, operator: repo.repo })),
  total,
  'repository',
)}
<p>Yield is kept ÷ validated. Killed: a stable test failed. Leaky: kept, but the problem statement would have shown the fix or a test, so it was rejected. Type-valid: of the sampled mutants in TypeScript files, those the compiler accepted (rejected ones never reach validation).</p>
</body></html>
`;
}
