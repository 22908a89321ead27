import { emptyHistoryFunnel, type HistoryFunnel, type VerdictStatus } from '../store/records.js';
import type { RunStore } from '../store/run-store.js';

/** One operator's way from proposed edits to tasks, in one repository or summed over several. */
export interface FunnelRow {
  /** The bug source, and the strategy (operator) the row counts; a generator's row names the generator twice. */
  generator: string;
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
  /** Tasks whose statement shows a repro that ran on the buggy and the fixed code as the statement says. */
  repros: number;
  /** Tasks per difficulty tier (see difficulty.ts); tasks from runs before difficulty was measured count in none. */
  easy: number;
  medium: number;
  hard: number;
  /** kept / validated, with its 95% Wilson score interval. */
  yield: number;
  low: number;
  high: number;
}

export interface RepoStats {
  repo: string;
  operators: FunnelRow[];
  /** The same counts per bug source. */
  generators: FunnelRow[];
  /** The history source's walk through the commits, when history was a source. */
  history: HistoryFunnel | null;
  total: FunnelRow;
}

export interface Stats {
  repos: RepoStats[];
  overall: { operators: FunnelRow[]; generators: FunnelRow[]; history: HistoryFunnel | null; total: FunnelRow };
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

type Counts = Omit<FunnelRow, 'generator' | 'operator' | 'family' | 'yield' | 'low' | 'high'>;
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
  repros: 0,
  easy: 0,
  medium: 0,
  hard: 0,
};

function row(generator: string, operator: string, family: string, counts: Counts): FunnelRow {
  const [low, high] = wilson(counts.kept, counts.validated);
  return { generator, operator, family, ...counts, yield: counts.validated === 0 ? 0 : counts.kept / counts.validated, low, high };
}

function sum(rows: readonly Counts[]): Counts {
  const total = { ...ZERO };
  for (const each of rows) for (const key of Object.keys(ZERO) as Array<keyof Counts>) total[key] += each[key];
  return total;
}

/** Rows summed per key (an operator of a generator, or a generator), in the order the keys first appear. */
function grouped(rows: readonly FunnelRow[], by: 'operator' | 'generator'): FunnelRow[] {
  const groups = new Map<string, FunnelRow[]>();
  for (const each of rows) {
    const key = by === 'operator' ? `${each.generator}\0${each.operator}` : each.generator;
    groups.set(key, [...(groups.get(key) ?? []), each]);
  }
  return [...groups.values()].map((group) => {
    const first = group[0]!;
    return by === 'operator'
      ? row(first.generator, first.operator, first.family, sum(group))
      : row(first.generator, first.generator, first.generator, sum(group));
  });
}

/** The history walks of several runs, added up; null when none walked history. */
function sumHistory(walks: ReadonlyArray<HistoryFunnel | null>): HistoryFunnel | null {
  const present = walks.filter((walk): walk is HistoryFunnel => walk !== null);
  if (present.length === 0) return null;
  const numbers = ['walked', 'merges', 'withSourceChange', 'renamed', 'tooLarge', 'formattingOnly', 'applying'] as const;
  const total = emptyHistoryFunnel();
  for (const walk of present) for (const key of numbers) total[key] += walk[key];
  const reasons = present.map((walk) => walk.unavailable).filter((reason) => reason !== null);
  total.unavailable = reasons.length === present.length ? reasons[0]! : null;
  return total;
}

/** The funnel of one run: the mutate stage's counts joined with verdicts and statements. */
export function statsOf(store: RunStore): RepoStats {
  const environment = store.getMeta('environment');
  const funnel = store.getMeta('funnel') ?? [];
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict.status]));
  const statements = new Map(store.issues().map((issue) => [issue.candidateId, issue]));
  const counts = new Map<string, Counts & { generator: string; operator: string; family: string }>();
  for (const step of funnel) {
    counts.set(`${step.generator}\0${step.operator}`, {
      ...ZERO,
      generator: step.generator,
      operator: step.operator,
      family: step.family,
      proposed: step.sites,
      parseValid: step.parseValid,
      typeChecked: step.typeChecked,
      typeValid: step.typeValid,
    });
  }
  for (const candidate of store.candidates()) {
    // Merged candidates are made after validation and have no mutate-stage counts of their own.
    const { generator, strategy, family } = candidate.provenance;
    const entry = counts.get(`${generator}\0${strategy}`) ?? { ...ZERO, generator, operator: strategy, family };
    counts.set(`${generator}\0${strategy}`, entry);
    const status = verdicts.get(candidate.id);
    if (!status) continue;
    entry.validated++;
    if (KILLED.has(status)) entry.killed++;
    if (status === 'timeout') entry.timedOut++;
    if (status === 'out-of-memory') entry.outOfMemory++;
    if (status === 'survived') entry.survived++;
    if (status === 'kept') entry.kept++;
    const statement = status === 'kept' ? statements.get(candidate.id) : undefined;
    if (statement?.status === 'written') entry.tasks++;
    if (statement?.status === 'rejected') entry.rejected++;
    if (statement?.status === 'written' && statement.repro?.status === 'executed') entry.repros++;
    if (statement?.difficulty) entry[statement.difficulty.tier]++;
  }
  const operators = [...counts.values()].map(({ generator, operator, family, ...figures }) => row(generator, operator, family, figures));
  return {
    repo: environment?.repo ?? store.path,
    operators,
    generators: grouped(operators, 'generator'),
    history: store.getMeta('history') ?? null,
    total: row('all', 'all', 'all', sum(operators)),
  };
}

export function combineStats(repos: RepoStats[]): Stats {
  const operators = grouped(
    repos.flatMap((repo) => repo.operators),
    'operator',
  );
  return {
    repos,
    overall: {
      operators,
      generators: grouped(operators, 'generator'),
      history: sumHistory(repos.map((repo) => repo.history)),
      total: row('all', 'all', 'all', sum(operators)),
    },
  };
}

/** The history walk in one line: how many commits became proposals, and why the others did not. */
export function historyLine(walk: HistoryFunnel): string {
  if (walk.unavailable) return `history: nothing walked: ${walk.unavailable}`;
  return (
    `history: ${walk.walked} commits walked (${walk.merges} merges), ${walk.withSourceChange} with a source change ` +
    `(${walk.renamed} at paths renamed since), ${walk.tooLarge} too large, ` +
    `${walk.applying} reverts apply, ${walk.formattingOnly} of them only reformat`
  );
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
  ['run repro', (each) => String(each.repros)],
  ['easy/medium/hard', (each) => `${each.easy}/${each.medium}/${each.hard}`],
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
