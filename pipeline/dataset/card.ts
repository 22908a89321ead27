import { GENERATOR } from '../common/version.js';
import type { ExportFormat } from './formats/types.js';
import { FEW_FAILING, type Curation } from './curation.js';
import { DIFFICULTY_RULE, TIERS } from './difficulty.js';
import type { DatasetRepo, Instance, StatementProvenance } from './instance.js';

export interface CardFacts {
  dataset: string;
  version: string;
  repos: DatasetRepo[];
  instances: number;
  splits: Record<string, number>;
  operators: Array<{ operator: string; validated: number; kept: number }>;
  /** Per repository, who wrote the problem statements. */
  statements: StatementProvenance[];
  /** What curation dropped from each repository's tasks. */
  curation: ReadonlyArray<Curation & { repo: string }>;
  /** The tasks, for their difficulty per bug source. */
  tasks: ReadonlyArray<Pick<Instance, 'mutation' | 'difficulty'>>;
  /** The formats written: the card lists their files and their configs for dataset hubs. */
  formats: readonly Pick<ExportFormat, 'card'>[];
}

/** Who wrote the statements: the templates per style, and each language model with its endpoint and temperature. */
function statementLine(statements: readonly StatementProvenance[]): string {
  const writers = new Map<string, number>();
  for (const { writers: counts } of statements)
    for (const [writer, n] of Object.entries(counts)) writers.set(writer, (writers.get(writer) ?? 0) + n);
  const models = new Map(statements.flatMap(({ llm }) => llm.map((settings) => [settings.model, settings] as const)));
  const parts = [...writers].sort().map(([writer, n]) => {
    const [kind, name] = writer.split(':') as [string, string | undefined];
    if (kind !== 'llm') return name ? `${n} by the ${name} template` : `${n} by the template`;
    const settings = models.get(name ?? '');
    return `${n} by ${name}${settings ? ` at ${settings.endpoint}, temperature ${settings.temperature}` : ''}`;
  });
  return parts.length === 0 ? 'Problem statements: no record of their writer.' : `Problem statements: ${parts.join('; ')}.`;
}

/** How many statements show a repro that was run, and what became of the others. */
function reproLine(statements: readonly StatementProvenance[]): string[] {
  const counts = new Map<string, number>();
  let testFiles = 0;
  for (const { repros = {}, reproTestFiles = 0 } of statements) {
    for (const [status, n] of Object.entries(repros)) counts.set(status, (counts.get(status) ?? 0) + n);
    testFiles += reproTestFiles;
  }
  const all = [...counts.values()].reduce((sum, n) => sum + n, 0);
  if (all === 0) return [];
  const others = [
    counts.get('cut') ? `${counts.get('cut')} whose repro ran otherwise than the statement says` : '',
    counts.get('unrunnable') ? `${counts.get('unrunnable')} whose test asserts in a way Node alone cannot run` : '',
    counts.get('none') ? `${counts.get('none')} with no test code to cut a repro from` : '',
  ].filter((part) => part !== '');
  return [
    `Repros: ${counts.get('executed') ?? 0} of ${all} statements show a repro that was run: it fails on the buggy code as the statement says and passes on the fixed code. ${testFiles > 0 ? `${(counts.get('executed') ?? 0) - testFiles} are scripts run with Node alone, importing the package by its name; ${testFiles} are a test for the repository's own suite, where no such script could show the bug.` : 'Each is a script run with Node alone, importing the package by its name.'}${others.length > 0 ? ` The others say what happens in words: ${others.join('; ')}.` : ''}`,
  ];
}

/** The tier histogram per bug source (its operator, or the generator's strategy), with the total. */
function difficultyTable(tasks: CardFacts['tasks']): string[] {
  const rows = new Map<string, number[]>();
  const add = (key: string, column: number) => {
    const row = rows.get(key) ?? [0, 0, 0, 0];
    row[column]!++;
    rows.set(key, row);
  };
  for (const task of tasks) {
    const column = task.difficulty ? TIERS.indexOf(task.difficulty.tier) : TIERS.length;
    add(task.mutation.operator, column);
    add('**all**', column);
  }
  const all = rows.get('**all**');
  rows.delete('**all**');
  const unrated = (all?.[TIERS.length] ?? 0) > 0;
  const cells = (row: number[]) => (unrated ? row : row.slice(0, TIERS.length)).join(' | ');
  return [
    `Difficulty, measured from execution (fix size, fault localization over the hidden tests, whether the statement names the changed code): ${DIFFICULTY_RULE.easyUpTo} point or less is easy, up to ${DIFFICULTY_RULE.mediumUpTo} medium, more hard.`,
    '',
    `| source | ${TIERS.join(' | ')}${unrated ? ' | unrated' : ''} |`,
    `|---|${TIERS.map(() => '---|').join('')}${unrated ? '---|' : ''}`,
    ...[...rows].sort(([a], [b]) => a.localeCompare(b)).map(([key, row]) => `| ${key} | ${cells(row)} |`),
    ...(all ? [`| **all** | ${cells(all)} |`] : []),
  ];
}

/** What curation dropped, per repository, in one sentence each; nothing when it dropped nothing. */
function curationLines(curation: CardFacts['curation']): string[] {
  return curation.flatMap(({ repo, rule, stableTests, dropped }) => {
    const reasons = [
      dropped.f2pShare > 0
        ? `${dropped.f2pShare} whose FAIL_TO_PASS held more than ${FEW_FAILING} tests and more than ${Math.round(rule.maxF2pShare * 1000) / 10}% of its ${stableTests} stable tests`
        : '',
      dropped.tier > 0 ? `${dropped.tier} outside the tiers asked for (${rule.tiers.join(', ')})` : '',
      dropped.perFunction > 0 ? `${dropped.perFunction} beyond ${rule.maxPerFunction} per function` : '',
      dropped.selfCheck ? `${dropped.selfCheck} that failed the self-check (the manifest's \`self_check.failed\` says how)` : '',
    ].filter(Boolean);
    return reasons.length === 0 ? [] : [`Curation dropped from ${repo}: ${reasons.join('; ')}.`];
  });
}

function sizeCategory(count: number): string {
  return count < 1000 ? 'n<1K' : count < 10_000 ? '1K<n<10K' : '10K<n<100K';
}

/**
 * The dataset card: front matter that dataset hubs read (splits as data files, size, tags), then
 * what the tasks are, where they come from and how to use them, file by file of the formats written.
 */
export function datasetCard(facts: CardFacts): string {
  const rows = facts.operators.map(
    (row) =>
      `| ${row.operator} | ${row.validated} | ${row.kept} | ${row.validated === 0 ? '—' : `${((row.kept / row.validated) * 100).toFixed(1)}%`} |`,
  );
  const configs = facts.formats.flatMap((format) => format.card.configs ?? []);
  return [
    '---',
    `pretty_name: ${JSON.stringify(`${facts.dataset} ${facts.version}`)}`,
    'license: other',
    'task_categories:',
    '- text-generation',
    'tags:',
    '- code',
    '- bug-fixing',
    '- swe-bench',
    'size_categories:',
    `- ${sizeCategory(facts.instances)}`,
    ...(configs.length > 0 ? ['configs:', ...configs] : []),
    '---',
    '',
    `# ${facts.dataset} ${facts.version}`,
    '',
    `${facts.instances} bug-fixing tasks generated by swesynth ${GENERATOR.version} from ${facts.repos.map((repo) => `${repo.name} at ${repo.commit.slice(0, 12)}`).join(', ')}.`,
    'Each task is a mutation of working code that an existing test notices. Validation checked that the bug',
    'makes the FAIL_TO_PASS tests fail and that its fix (`patch`) makes them and every PASS_TO_PASS test pass,',
    'and the export checked it again on the task as an agent gets it: the fix resolves every task, an empty',
    'patch and the bug itself resolve none.',
    '',
    `Splits: ${Object.entries(facts.splits)
      .map(([split, count]) => `${split} ${count}`)
      .join(', ')}.`,
    statementLine(facts.statements),
    ...reproLine(facts.statements),
    '',
    '| operator | validated | kept | yield |',
    '|---|---|---|---|',
    ...rows,
    '',
    ...difficultyTable(facts.tasks),
    ...curationLines(facts.curation).flatMap((line) => ['', line]),
    '',
    '## Files',
    '',
    ...facts.formats.flatMap((format) => format.card.files),
    '- `manifest.json`: generator, configuration, repositories with their profiles, counts, yield, the self-check',
    '  and the sha256 of every file. `swesynth dataset verify <folder>` checks them;',
    '  `swesynth eval --dataset <folder> --predictions <file>` grades SWE-bench predictions;',
    '  `swesynth docker build <folder>` rebuilds the environment images from the profiles.',
    '',
  ].join('\n');
}
