import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { StageContext, StageResult } from './context.js';
import { UserError } from './errors.js';
import { MutationSettings } from './records.js';
import { environmentOf } from './setup.js';
import { slugOf } from './profile.js';
import { GENERATOR } from './version.js';

const VERSION_PATTERN = /^[\w.-]+$/;

/** The next free `vN` of a dataset. */
async function nextVersion(datasetDir: string): Promise<string> {
  const taken = existsSync(datasetDir) ? await readdir(datasetDir) : [];
  const numbers = taken.map((name) => /^v(\d+)$/.exec(name)?.[1]).filter(Boolean).map(Number);
  return `v${Math.max(0, ...numbers) + 1}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * Export: the kept tasks as a new, immutable dataset version, out/<dataset>/<version>/, with
 * SWE-bench fields, a manifest of hashes and counts, and a card. It is written to a temporary
 * folder and renamed into place, so a version exists whole or not at all. A run exports once;
 * `again` writes a further version.
 */
export async function exportDataset(ctx: StageContext, { again = false } = {}): Promise<StageResult> {
  const { store, profile, options, log } = ctx;
  const done = store.exports().at(-1);
  if (done && !again) return { stage: 'export', alreadyDone: true, ...done };
  if (!store.stageSummary('issues')) throw new Error('export needs the problem statements of the issues stage');
  if (!VERSION_PATTERN.test(options.dataset)) throw new UserError(`dataset name "${options.dataset}" may only hold letters, digits, ".", "_" and "-"`);
  if (options.datasetVersion && !VERSION_PATTERN.test(options.datasetVersion)) {
    throw new UserError(`dataset version "${options.datasetVersion}" may only hold letters, digits, ".", "_" and "-"`);
  }

  const environment = environmentOf(ctx);
  const datasetDir = resolve(options.outDir, options.dataset);
  const version = options.datasetVersion ?? (await nextVersion(datasetDir));
  const target = join(datasetDir, version);
  if (existsSync(target)) {
    throw new UserError(`dataset version ${target} already exists, and a written version is never changed`, 'choose another --dataset-version, or leave it out to take the next free one');
  }

  const createdAt = new Date().toISOString();
  const verdicts = new Map(store.verdicts().map((verdict) => [verdict.candidateId, verdict]));
  const issues = store.issues();
  const statements = new Map(issues.filter((issue) => issue.status === 'written').map((issue) => [issue.candidateId, issue]));
  const candidates = store.candidates();
  const instances = candidates
    .filter((candidate) => verdicts.get(candidate.id)?.status === 'kept' && statements.has(candidate.id))
    .map((candidate) => {
      const verdict = verdicts.get(candidate.id)!;
      const statement = statements.get(candidate.id)!;
      return {
        instance_id: `${slugOf(profile)}.${candidate.operator}__${candidate.id}`,
        repo: profile.name,
        base_commit: environment.baseCommit,
        environment_setup_commit: environment.baseCommit,
        patch: candidate.fixPatch,
        test_patch: '',
        problem_statement: statement.body,
        hints_text: '',
        FAIL_TO_PASS: JSON.stringify(verdict.failToPass),
        PASS_TO_PASS: JSON.stringify(verdict.passToPass),
        created_at: createdAt,
        version: environment.repoVersion,
        image_name: environment.image,
        bug_patch: candidate.bugPatch,
        mutation: {
          operator: candidate.operator,
          family: candidate.family,
          file: candidate.file,
          function: candidate.unit,
          sites: candidate.sites.map((site) => ({
            file: site.file,
            function: site.unit,
            operator: site.operator,
            lines: { start: site.startLine, end: site.endLine },
            original: site.original,
            replacement: site.replacement,
          })),
          ...(candidate.parents.length > 0 ? { combines: candidate.parents } : {}),
        },
        title: statement.title,
        runner: profile.runner,
      };
    });

  const yieldByOperator = store.yieldByOperator();
  const validated = yieldByOperator.reduce((sum, row) => sum + row.validated, 0);
  const counts = {
    candidates: candidates.length,
    verdicts: store.verdictCounts(),
    kept: [...verdicts.values()].filter((verdict) => verdict.status === 'kept').length,
    statementsRejected: issues.filter((issue) => issue.status === 'rejected').length,
    instances: instances.length,
  };
  const files: Record<string, string> = {
    'instances.jsonl': instances.map((instance) => JSON.stringify(instance)).join('\n') + (instances.length > 0 ? '\n' : ''),
    'README.md': card(options.dataset, version, profile.name, environment.baseCommit, counts, yieldByOperator),
  };
  const manifest = {
    generator: GENERATOR,
    dataset: options.dataset,
    version,
    created_at: createdAt,
    config: { ...store.getMeta('mutation', MutationSettings), baselineRuns: environment.baselineRuns, timeoutMs: environment.timeoutMs, sandbox: environment.sandbox, runner: profile.runner },
    seed: options.seed,
    // The profile rebuilds the environment image: `swesynth docker build <dataset folder>`.
    repos: [{ name: profile.name, url: profile.url, commit: environment.baseCommit, image: environment.image, profile }],
    counts,
    yield: {
      overall: validated === 0 ? 0 : counts.kept / validated,
      byOperator: Object.fromEntries(yieldByOperator.map(({ operator, ...figures }) => [operator, figures])),
    },
    files: Object.fromEntries(Object.entries(files).map(([name, text]) => [name, { sha256: sha256(text), bytes: Buffer.byteLength(text) }])),
  };
  files['manifest.json'] = JSON.stringify(manifest, null, 2) + '\n';

  await mkdir(datasetDir, { recursive: true });
  const staging = join(datasetDir, `.${version}.partial-${process.pid}`);
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging);
  try {
    for (const [name, text] of Object.entries(files)) await writeFile(join(staging, name), text);
    if (existsSync(target)) throw new UserError(`dataset version ${target} appeared while exporting`, 'export again');
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
  const record = { dataset: options.dataset, version, path: target, instances: instances.length, createdAt };
  store.transaction(() => {
    store.saveExport(record);
    store.finishStage('export', record);
  });
  log.info(`export: ${instances.length} tasks written to ${target}`);
  return { stage: 'export', alreadyDone: false, ...record };
}

function card(
  dataset: string,
  version: string,
  repo: string,
  commit: string,
  counts: { candidates: number; kept: number; instances: number },
  yields: Array<{ operator: string; candidates: number; validated: number; kept: number; yield: number }>,
): string {
  const rows = yields.map((row) => `| ${row.operator} | ${row.candidates} | ${row.kept} | ${(row.yield * 100).toFixed(1)}% |`);
  return [
    `# ${dataset} ${version}`,
    '',
    `Bug-fixing tasks generated by swesynth ${GENERATOR.version} from ${repo} at ${commit}.`,
    'Each task is a mutation of working code that an existing test notices; the bug was checked to make',
    'the FAIL_TO_PASS tests fail, and its fix (`patch`) to make them pass again.',
    '',
    `${counts.instances} tasks from ${counts.candidates} candidates (${counts.kept} kept by validation).`,
    '',
    '| operator | candidates | kept | yield |',
    '|---|---|---|---|',
    ...rows,
    '',
    'Files: `instances.jsonl` (one task per line, SWE-bench fields plus `bug_patch` and `mutation`),',
    '`manifest.json` (generator, configuration, counts, yield and the sha256 of every other file).',
    '',
  ].join('\n');
}
