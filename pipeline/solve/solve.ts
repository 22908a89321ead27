import { readFileSync } from 'node:fs';
import { mkdir, realpath } from 'node:fs/promises';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { searchFix, SearchOutcome, SEARCH_MODEL, type RepoKnowledge } from './search.js';
import { TaskTrees, type Prediction } from '../dataset/grading.js';
import type { DatasetRepo, Instance } from '../dataset/instance.js';
import { prepareTaskTree } from '../dataset/task-tree.js';
import { listTestFiles, suitesOf } from '../runners/suites.js';
import { LocalSandbox } from '../sandbox/local.js';
import { nodeRuntime } from '../sandbox/node-runtime.js';
import { runConcurrently } from '../scheduling/in-process.js';
import { sourceFilesOf } from '../stages/mutate.js';
import { learnCoverage } from '../validation/coverage.js';
import type { CoverageMap } from '../store/records.js';

/** The edit count the report marks besides the budget: a fix found this early is mechanical. */
export const EARLY_EDITS = 50;

const count = z.number().int().min(0);

/** How many tasks of one bug source or operator the search fixed, within EARLY_EDITS edits and within the budget. */
export const SolveShare = z.object({ tasks: count, withinEarly: count, withinBudget: count, noOracle: count, medianMs: count });
export type SolveShare = z.infer<typeof SolveShare>;

export const SolveReport = z.object({
  model: z.literal(SEARCH_MODEL),
  dataset: z.string(),
  version: z.string(),
  budget: count,
  early: count,
  total: SolveShare,
  /** Per the task's strategy: the operator that made it, `multi-site`, `combined`, `revert`. */
  byStrategy: z.record(z.string(), SolveShare),
  outcomes: z.array(SearchOutcome),
  /** Learning each repository's coverage, before any task. */
  coverageMs: count,
  durationMs: count,
});
export type SolveReport = z.infer<typeof SolveReport>;

export interface SolveOptions {
  budget: number;
  /** A clean workspace of the repository at the instances' base_commit, installed. */
  workspaceOf(repo: string): Promise<string>;
  /** Where the task trees are made: one per concurrent search, reset between tasks, all removed at the end. */
  workDir: string;
  /** Tasks searched at once (default: the CPU count). */
  concurrency?: number;
  /** Which functions each test file executes, when already learned on the repository's clean code (as setup learns it); learned here when null. */
  coverageOf?(repo: string): CoverageMap | null;
  onCoverage?(repo: string): void;
  /** Outcomes of an earlier search of this dataset with the same budget, which a killed search left: not searched again. */
  done?: ReadonlyMap<string, SearchOutcome>;
  onOutcome?(outcome: SearchOutcome, done: number, total: number): void;
}

/** What the search needs of a repository, from its clean workspace: its files, its package's name, its tests' coverage. */
async function knowledgeOf(repo: DatasetRepo, workspace: string, learned: CoverageMap | null): Promise<RepoKnowledge> {
  const { profile } = repo;
  const suites = suitesOf(profile);
  const testFiles = (await Promise.all(suites.map((suite) => listTestFiles(workspace, suite)))).flat().sort();
  const node = await nodeRuntime(profile.node);
  const sandbox = LocalSandbox.at(workspace, profile.env, node);
  try {
    const coverage =
      learned ??
      (await learnCoverage({
        suites,
        testFiles,
        only: testFiles,
        skip: repo.setAside,
        env: profile.env,
        timeoutMs: 5 * 60_000,
        concurrency: 1,
        open: async () => sandbox,
        close: async () => {},
      }));
    const manifest = JSON.parse(readFileSync(join(workspace, 'package.json'), 'utf8')) as { name?: unknown };
    return {
      profile,
      node,
      packageName: typeof manifest.name === 'string' ? manifest.name : null,
      sourceFiles: await sourceFilesOf(workspace, profile, new Set(testFiles)),
      testFiles,
      coverage,
      setAside: repo.setAside,
    };
  } finally {
    await sandbox.dispose();
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : Math.round(sorted[Math.floor((sorted.length - 1) / 2)]!);
};

function shareOf(outcomes: SearchOutcome[], budget: number): SolveShare {
  const found = outcomes.filter((outcome) => outcome.status === 'found');
  return {
    tasks: outcomes.length,
    withinEarly: found.filter((outcome) => outcome.edits <= EARLY_EDITS).length,
    withinBudget: found.filter((outcome) => outcome.edits <= budget).length,
    noOracle: outcomes.filter((outcome) => outcome.status === 'no-oracle').length,
    medianMs: median(outcomes.map((outcome) => outcome.durationMs)),
  };
}

/** The search's fixes as SWE-bench predictions, one per task: an empty patch where it found none. */
export function predictionsOf(outcomes: readonly SearchOutcome[]): Prediction[] {
  return outcomes.map((outcome) => ({
    instance_id: outcome.instance_id,
    model_name_or_path: SEARCH_MODEL,
    model_patch: outcome.fix?.patch ?? '',
  }));
}

/**
 * Runs the search-based repair baseline on every task of a dataset, each in a task tree as an
 * agent gets it, and reports how many it fixed per strategy (see searchFix).
 */
export async function solve(
  dataset: { name: string; version: string; instances: readonly Instance[]; repos: readonly DatasetRepo[] },
  options: SolveOptions,
): Promise<SolveReport> {
  const started = performance.now();
  const outcomes = new Map<string, SearchOutcome>(options.done);
  const pending = dataset.instances.filter((instance) => !outcomes.has(instance.instance_id));
  const knowledge = new Map<string, RepoKnowledge>();
  for (const repo of dataset.repos) {
    if (!pending.some((instance) => instance.repo === repo.name)) continue;
    knowledge.set(repo.name, await knowledgeOf(repo, await options.workspaceOf(repo.name), options.coverageOf?.(repo.name) ?? null));
    options.onCoverage?.(repo.name);
  }
  const coverageMs = Math.round(performance.now() - started);
  await mkdir(options.workDir, { recursive: true });
  // Runners report test files by their real path: a task tree reached through a symlink would name them differently.
  const trees = new TaskTrees(await realpath(options.workDir));
  try {
    await runConcurrently(
      pending,
      options.concurrency ?? availableParallelism(),
      async (instance) => {
        const repo = knowledge.get(instance.repo)!;
        const tree = await trees.take(instance.repo);
        try {
          await prepareTaskTree(await options.workspaceOf(instance.repo), tree, instance, repo.profile);
          return await searchFix(instance, tree, repo, options.budget);
        } finally {
          trees.give(instance.repo, tree);
        }
      },
      (instance, outcome) => {
        outcomes.set(instance.instance_id, outcome);
        options.onOutcome?.(outcome, outcomes.size, pending.length);
      },
    );
  } finally {
    await trees.remove();
  }
  const ordered = dataset.instances.map((instance) => outcomes.get(instance.instance_id)!);
  const strategies = [...new Set(dataset.instances.map((instance) => instance.mutation.operator))].sort();
  return {
    model: SEARCH_MODEL,
    dataset: dataset.name,
    version: dataset.version,
    budget: options.budget,
    early: EARLY_EDITS,
    total: shareOf(ordered, options.budget),
    byStrategy: Object.fromEntries(
      strategies.map((strategy) => [
        strategy,
        shareOf(
          ordered.filter((_, index) => dataset.instances[index]!.mutation.operator === strategy),
          options.budget,
        ),
      ]),
    ),
    outcomes: ordered,
    coverageMs,
    durationMs: Math.round(performance.now() - started),
  };
}
