import type { VerdictStatus } from '../store/records.js';
import type { RunStore } from '../store/run-store.js';

/** One operator's way from proposed edits to tasks, in one repository or summed over several. */
export interface FunnelRow {
  operator: string;
  family: string;
  /** Edits the operator proposed, and those that parse and differ from every other. */
  proposed: number;
  parseValid: number;
  /** Of the mutants the sampler picked in TypeScript files, those the compiler checked and accepted. */
  typeChecked: number;
  typeValid: number;
  validated: number;
  /** A stable test failed (kept, no-pass, fix-failed, interfered, or killed in a kill screen). */
  killed: number;
  timedOut: number;
  /** A test process ran out of memory. */
  outOfMemory: number;
  survived: number;
  kept: number;
  /** Kept candidates with a problem statement that passed the leak check, and those whose statement it rejected. */
  tasks: number;
  rejected: number;
  /** kept / validated, with its 95% Wilson score interval. */
  yield: number;
  low: number;
  high: number;
}

export interface RepoStats {
  repo: string;
  operators: FunnelRow[];
  total: FunnelRow;
}

export interface Stats {
  repos: RepoStats[];
  overall: { operators: FunnelRow[]; total: FunnelRow };
}

/** The verdicts of candidates a stable test failed. */
export const KILLED: ReadonlySet<VerdictStatus> = new Set(['kept', 'killed', 'no-pass', 'fix-failed', 'interfered']);

/** The 95% Wilson score interval of k successes in n trials; it stays inside [0, 1] for small n. */
export function wilson(k: number, n: number, z = 1.959964): [number, number] {
  if (n === 0) return [0, 0];
  const p = k / n;
  const denominator = 1 + (z * z) / n;
  const center = (p + (z * z) / (2 * n)) / denominator;
  const half = (z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n))) / denominator;
  return [Math.max(0, center - half), Math.min(1, center + half)];
}

type Counts = Omit<FunnelRow, 'operator' | 'family' | 'yield' | 'low' | 'high'>;
const ZERO: Counts = {
  proposed: 0,
  parseValid: 0,
  typeChecked: 0,
  typeValid: 0,
  validated: 0,
  killed: 0,
  timedOut: 0,
  outOfMemory: 0,
  survived: 0,
  kept: 0,
  tasks: 0,
  rejected: 0,
};

function row(operator: string, family: string, counts: Counts): FunnelRow {
  const [low, high] = wilson(counts.kept, counts.validated);
  return { operator, family, ...counts, yield: counts.validated === 0 ? 0 : counts.kept / counts.validated, low, high };
}

function sum(rows: readonly Counts[]): Counts {
  const total = { ...ZERO };
  for (const each of rows) for (const key of Object.keys(ZERO) as Array<keyof Counts>) total[key] += each[key];
  return total;
}

/** Rows per operator summed over repositories, in the order operators first appear. */
function byOperator(rows: readonly FunnelRow[]): FunnelRow[] {
  const groups = new Map<string, FunnelRow[]>();
  for (const each of rows) groups.set(each.operator, [...(groups.get(each.operator) ?? []), each]);
  return [...groups].map(([operator, group]) => row(operator, group[0]!.family, sum(group)));
}

/** The funnel of one run: the mutate stage's counts joined with verdicts and statements. */
export function statsOf(store: RunStore): RepoStats {
  const environment = store.getMeta('environment');
  const funnel = store.getMeta('funnel') ?? [];
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict.status]));
  const statements = new Map(store.issues().map((issue) => [issue.candidateId, issue.status]));
  const counts = new Map<string, Counts & { family: string }>();
  for (const step of funnel) {
    counts.set(step.operator, {
      ...ZERO,
      family: step.family,
      proposed: step.sites,
      parseValid: step.parseValid,
      typeChecked: step.typeChecked,
      typeValid: step.typeValid,
    });
  }
  for (const candidate of store.candidates()) {
    // Merged candidates are made after validation and have no mutate-stage counts of their own.
    const entry = counts.get(candidate.operator) ?? { ...ZERO, family: candidate.family };
    counts.set(candidate.operator, entry);
    const status = verdicts.get(candidate.id);
    if (!status) continue;
    entry.validated++;
    if (KILLED.has(status)) entry.killed++;
    if (status === 'timeout') entry.timedOut++;
    if (status === 'out-of-memory') entry.outOfMemory++;
    if (status === 'survived') entry.survived++;
    if (status === 'kept') entry.kept++;
    if (status === 'kept' && statements.get(candidate.id) === 'written') entry.tasks++;
    if (status === 'kept' && statements.get(candidate.id) === 'rejected') entry.rejected++;
  }
  const operators = [...counts].map(([operator, { family, ...figures }]) => row(operator, family, figures));
  return { repo: environment?.repo ?? store.path, operators, total: row('all', 'all', sum(operators)) };
}

export function combineStats(repos: RepoStats[]): Stats {
  const operators = byOperator(repos.flatMap((repo) => repo.operators));
  return { repos, overall: { operators, total: row('all', 'all', sum(operators)) } };
}

const percent = (value: number) => `${(value * 100).toFixed(1)}%`;
const interval = (each: FunnelRow) => (each.validated === 0 ? '—' : `${percent(each.yield)} [${percent(each.low)}, ${percent(each.high)}]`);

const COLUMNS: Array<[string, (each: FunnelRow) => string]> = [
  ['', (each) => each.operator],
  ['proposed', (each) => String(each.proposed)],
  ['parse-valid', (each) => String(each.parseValid)],
  ['type-valid', (each) => (each.typeChecked === 0 ? '—' : `${each.typeValid}/${each.typeChecked}`)],
  ['validated', (each) => String(each.validated)],
  ['killed', (each) => String(each.killed)],
  ['timed out', (each) => String(each.timedOut)],
  ['out of memory', (each) => String(each.outOfMemory)],
  ['survived', (each) => String(each.survived)],
  ['kept', (each) => String(each.kept)],
  ['tasks', (each) => String(each.tasks)],
  ['leaky', (each) => String(each.rejected)],
  ['yield [95% CI]', interval],
];

/** A Markdown table (readable as plain text too) of funnel rows and their total. */
export function funnelTable(rows: readonly FunnelRow[], total: FunnelRow, first = 'operator'): string {
  const cells = [...rows, total].map((each) => COLUMNS.map(([, cell]) => cell(each)));
  cells[cells.length - 1]![0] = '**all**';
  const header = [first, ...COLUMNS.slice(1).map(([name]) => name)];
  const widths = header.map((name, i) => Math.max(name.length, ...cells.map((line) => line[i]!.length)));
  const line = (values: string[]) =>
    `| ${values.map((value, i) => (i === 0 ? value.padEnd(widths[i]!) : value.padStart(widths[i]!))).join(' | ')} |`;
  return [
    line(header),
    `|${widths.map((width, i) => (i === 0 ? `:${'-'.repeat(width + 1)}` : `${'-'.repeat(width + 1)}:`)).join('|')}|`,
    ...cells.map(line),
  ].join('\n');
}

/** The per-repository summary: one row per repository with its total. */
export function repoTable(stats: Stats): string {
  return funnelTable(
    stats.repos.map((repo) => ({ ...repo.total, operator: repo.repo })),
    stats.overall.total,
    'repository',
  );
}
