import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { UserError } from '../common/errors.js';
import { ownedFolder, removeOrphans } from '../common/process-alive.js';
import { GENERATOR } from '../common/version.js';
import { datasetCard } from './card.js';
import { formatsFor } from './formats/index.js';
import type { ContextFile, FormatInput, FormatRepo } from './formats/types.js';
import type { DatasetRepo, Instance, StatementProvenance } from './instance.js';
import type { Manifest } from './manifest.js';
import { SPLITS, splitOf, type Split, type SplitRule } from './splits.js';
import type { SelfCheck } from '../store/summaries.js';
import type { Curation } from './curation.js';

const STAGING = '.partial';
const NAME_PATTERN = /^[\w.-]+$/;
export const SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-[\w.-]+)?$/;

/** Refuses a dataset name that is no plain folder name, before any work that would end in writing it. */
export function requireDatasetName(name: string): void {
  if (!NAME_PATTERN.test(name)) throw new UserError(`dataset name "${name}" may only hold letters, digits, ".", "_" and "-"`);
}

/** What one run contributes to a dataset. */
export interface DatasetSource {
  repo: DatasetRepo;
  /** A git repository holding the repository's base commit (the run's workspace). */
  gitDir: string;
  /** The longest a test run may take, as the baseline set it. */
  testTimeoutMs: number;
  instances: Instance[];
  /** Per instance id, the files the bug is in, as the agent finds them. */
  context: Map<string, ContextFile[]>;
  settings: unknown;
  counts: Record<string, unknown>;
  operators: Array<{ operator: string; validated: number; kept: number }>;
  /** Who wrote the problem statements. */
  statements: StatementProvenance;
  /** The tasks the export's curation dropped, and why. */
  curation: Curation;
}

export interface DatasetOptions {
  outDir: string;
  dataset: string;
  version: string | null;
  split: SplitRule;
  testShare: number;
  /** The export formats to write (see formats/index.ts); swe-bench always. */
  formats: readonly string[];
  /** The container limits that formats describing a container state. */
  limits: { cpus: number; memoryBytes: number };
  /** Where the user publishes swesynth's images, which Harbor tasks then start from; null: tasks build from public images alone. */
  publishedImages?: string | null;
  /** The manifest's created_at; an export that was killed after writing finds its version by it. */
  createdAt?: string;
  /** Grades every task three ways before anything is written; a dataset that fails it is not written. */
  selfCheck(instances: Instance[]): Promise<SelfCheck>;
}

function sha256(text: string | Buffer): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The next minor version after the highest one written (1.0.0 for a new dataset). */
async function nextVersion(datasetDir: string): Promise<string> {
  const versions = (existsSync(datasetDir) ? await readdir(datasetDir) : [])
    .map((name) => SEMVER.exec(name))
    .filter((match) => match !== null);
  if (versions.length === 0) return '1.0.0';
  const [major, minor] = versions
    .map((match) => [Number(match[1]), Number(match[2])] as const)
    .sort((a, b) => b[0] - a[0] || b[1] - a[1])[0]!;
  return `${major}.${minor + 1}.0`;
}

/**
 * How many tasks the self-check may leave out before it fails the export: a task can fail it through a
 * test that fails now and then, which three baseline runs did not catch; many failing is not that.
 */
export function leftOutAtMost(total: number): number {
  return Math.max(1, Math.floor(total / 10));
}

/** The sources without the tasks that failed the self-check, each counting those it lost. */
function withoutFailed(sources: readonly DatasetSource[], failed: ReadonlySet<string>): DatasetSource[] {
  return sources.map((source) => {
    const instances = source.instances.filter((instance) => !failed.has(instance.instance_id));
    const selfCheck = source.instances.length - instances.length;
    return {
      ...source,
      instances,
      counts: { ...source.counts, instances: instances.length },
      curation: { ...source.curation, dropped: { ...source.curation.dropped, selfCheck } },
    };
  });
}

/**
 * Writes a new, immutable dataset version, out/<dataset>/<semver>/: the files of each export
 * format chosen (formats/index.ts), a card and a manifest with the sha256 of every file. The
 * self-check runs first, and the tasks that fail it are left out (too many, and nothing is written);
 * the files are written to a hidden folder and renamed into place, so a version exists whole or not at all.
 */
export async function writeDataset(
  sources: readonly DatasetSource[],
  options: DatasetOptions,
): Promise<{ path: string; version: string; instances: number; selfCheck: SelfCheck }> {
  requireDatasetName(options.dataset);
  if (options.version !== null && !SEMVER.test(options.version)) {
    throw new UserError(`dataset version "${options.version}" is not a semantic version`, 'write it like 1.2.0');
  }
  const datasetDir = resolve(options.outDir, options.dataset);
  const version = options.version ?? (await nextVersion(datasetDir));
  const target = join(datasetDir, version);
  const refuseExisting = () => {
    if (existsSync(target))
      throw new UserError(
        `dataset version ${target} already exists, and a written version is never changed`,
        'choose another --dataset-version, or leave it out to take the next one',
      );
  };
  refuseExisting();

  const formats = formatsFor(options.formats);
  const selfCheck = await options.selfCheck(sources.flatMap((source) => source.instances));
  const { gold, empty, bug, failed = [] } = selfCheck;
  if (failed.length > leftOutAtMost(gold.total)) {
    throw new UserError(
      `the self-check failed: the fix resolves ${gold.resolved} of ${gold.total} tasks (must be all), an empty patch ${empty.resolved} and the bug itself ${bug.resolved} (must be none)${failed
        .slice(0, 10)
        .map(({ instance_id, reason }) => `\n  ${instance_id}: ${reason}`)
        .join('')}`,
      'nothing was written; this is a bug in swesynth or an unstable test suite, please report it with the run folder',
    );
  }
  sources = withoutFailed(sources, new Set(failed.map((failure) => failure.instance_id)));

  const bySplitOf = (all: readonly Instance[]) =>
    Object.fromEntries(
      SPLITS.map((split) => [split, all.filter((instance) => splitOf(instance, options.split, options.testShare) === split)]),
    ) as Record<Split, Instance[]>;
  const collected = sources.flatMap((source) => source.instances);
  let input: FormatInput = {
    instances: collected,
    bySplit: bySplitOf(collected),
    context: new Map(sources.flatMap((source) => [...source.context])),
    repos: new Map(
      sources.map((source): [string, FormatRepo] => [
        source.repo.name,
        { ...source.repo, gitDir: source.gitDir, testTimeoutMs: source.testTimeoutMs },
      ]),
    ),
    limits: options.limits,
    publishedImages: options.publishedImages ?? null,
    workDir: ownedFolder(datasetDir, STAGING, `${version}-work`),
  };
  await mkdir(datasetDir, { recursive: true });
  // What a killed export was writing: never a version, since it was never renamed into place.
  await removeOrphans(datasetDir, STAGING);
  await mkdir(input.workDir, { recursive: true });
  const files: Record<string, string | Buffer> = {};
  try {
    // A format may set fields of the instances (the bundle sets base_commit) before any format writes them.
    for (const format of formats) {
      if (!format.prepare) continue;
      const prepared = await format.prepare(input);
      input = { ...input, instances: prepared, bySplit: bySplitOf(prepared) };
    }
    for (const format of formats) Object.assign(files, await format.files(input));
  } finally {
    await rm(input.workDir, { recursive: true, force: true });
  }
  const { instances } = input;
  const splits = Object.fromEntries(SPLITS.map((split) => [split, input.bySplit[split].length]));
  const operators = new Map<string, { operator: string; validated: number; kept: number }>();
  for (const row of sources.flatMap((source) => source.operators)) {
    const total = operators.get(row.operator) ?? { operator: row.operator, validated: 0, kept: 0 };
    total.validated += row.validated;
    total.kept += row.kept;
    operators.set(row.operator, total);
  }
  files['README.md'] = datasetCard({
    dataset: options.dataset,
    version,
    repos: sources.map((source) => source.repo),
    instances: instances.length,
    splits,
    operators: [...operators.values()],
    statements: sources.map((source) => source.statements),
    curation: sources.map((source) => ({ repo: source.repo.name, ...source.curation })),
    tasks: instances,
    formats,
  });
  const manifest: Manifest = {
    generator: GENERATOR,
    dataset: options.dataset,
    version,
    created_at: options.createdAt ?? new Date().toISOString(),
    split: { rule: options.split, testShare: options.testShare, counts: splits },
    repos: sources.map((source) => ({
      ...source.repo,
      settings: source.settings,
      counts: source.counts,
      statements: source.statements,
      curation: source.curation,
    })),
    instances: instances.length,
    self_check: selfCheck,
    yield: [...operators.values()].map((row) => ({ ...row, yield: row.validated === 0 ? 0 : row.kept / row.validated })),
    formats: formats.map((format) => format.name),
    files: Object.fromEntries(
      Object.entries(files).map(([name, text]) => [name, { sha256: sha256(text), bytes: Buffer.byteLength(text) }]),
    ),
  };
  files['manifest.json'] = `${JSON.stringify(manifest, null, 2)}\n`;

  const staging = ownedFolder(datasetDir, STAGING, version);
  try {
    for (const [name, text] of Object.entries(files)) {
      await mkdir(dirname(join(staging, name)), { recursive: true });
      await writeFile(join(staging, name), text, { mode: name.endsWith('.sh') ? 0o755 : 0o644 });
    }
    refuseExisting();
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  return { path: target, version, instances: instances.length, selfCheck };
}
