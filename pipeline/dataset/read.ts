import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { UserError } from '../common/errors.js';
import { DatasetRepo, Instance, StatementProvenance, testIdsOf } from './instance.js';
import { SPLITS } from './splits.js';
import { SelfCheck } from '../store/summaries.js';

const Manifest = z.object({
  dataset: z.string(),
  version: z.string(),
  created_at: z.string().optional(),
  instances: z.number().int().optional(),
  self_check: SelfCheck.optional(),
  repos: z.array(DatasetRepo.extend({ statements: StatementProvenance.optional() })),
  files: z.record(z.string(), z.object({ sha256: z.string(), bytes: z.number() })),
});

function rows(text: string, file: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line, index) => {
      try {
        return JSON.parse(line) as unknown;
      } catch {
        throw new UserError(`${file} line ${index + 1} is not JSON`, 'the dataset is damaged: export it again');
      }
    });
}

/** A dataset folder's manifest and instances, with one clear message when either is missing or malformed. */
export function readDataset(dir: string): { manifest: z.infer<typeof Manifest>; instances: Instance[] } {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath))
    throw new UserError(
      `${dir} is not a dataset: it has no manifest.json`,
      'name a folder that `swesynth export` wrote, e.g. out/<dataset>/1.0.0',
    );
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(manifestPath, 'utf8'));
  } catch (error) {
    throw new UserError(`${manifestPath} is not valid JSON: ${(error as Error).message}`, 'the dataset is damaged: export it again');
  }
  const manifest = Manifest.safeParse(raw);
  if (!manifest.success)
    throw new UserError(
      `${manifestPath} is malformed: ${manifest.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
    );
  const instancesPath = join(dir, 'instances.jsonl');
  if (!existsSync(instancesPath)) throw new UserError(`${dir} has no instances.jsonl`, 'the dataset is damaged: export it again');
  const instances = rows(readFileSync(instancesPath, 'utf8'), 'instances.jsonl').map((row, index) => {
    const parsed = Instance.safeParse(row);
    if (!parsed.success)
      throw new UserError(
        `instances.jsonl line ${index + 1} is malformed: ${parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ')}`,
      );
    return parsed.data;
  });
  return { manifest: manifest.data, instances };
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/**
 * Checks a dataset folder against its manifest and the schema: every file present with its
 * hash, none unlisted, every instance well-formed and unique, the splits a partition of the
 * instances, a harness task and a fine-tuning row for each. Returns the problems found.
 */
export function verifyDataset(dir: string): { instances: number; problems: string[] } {
  const { manifest, instances } = readDataset(dir);
  const problems: string[] = [];
  for (const [name, { sha256 }] of Object.entries(manifest.files)) {
    const path = join(dir, name);
    if (!existsSync(path)) problems.push(`${name} is missing`);
    else if (createHash('sha256').update(readFileSync(path)).digest('hex') !== sha256)
      problems.push(`${name} does not match its sha256 in the manifest`);
  }
  for (const path of filesUnder(dir)) {
    const name = relative(dir, path);
    if (name !== 'manifest.json' && !(name in manifest.files)) problems.push(`${name} is not in the manifest`);
  }
  const ids = instances.map((instance) => instance.instance_id);
  if (new Set(ids).size !== ids.length) problems.push('instance ids repeat');
  for (const instance of instances) {
    if (testIdsOf(instance.FAIL_TO_PASS).length === 0) problems.push(`${instance.instance_id} has no FAIL_TO_PASS test`);
    if (!existsSync(join(dir, 'tasks', instance.instance_id, 'setup.sh')))
      problems.push(`${instance.instance_id} has no harness task folder`);
    if (!manifest.repos.some((repo) => repo.name === instance.repo))
      problems.push(`${instance.instance_id} comes from ${instance.repo}, which the manifest does not list`);
  }
  const inSplits: string[] = [];
  for (const split of SPLITS) {
    const splitRows = existsSync(join(dir, 'data', `${split}.jsonl`))
      ? rows(readFileSync(join(dir, 'data', `${split}.jsonl`), 'utf8'), `data/${split}.jsonl`)
      : [];
    const tuningRows = existsSync(join(dir, 'finetune', `${split}.jsonl`))
      ? rows(readFileSync(join(dir, 'finetune', `${split}.jsonl`), 'utf8'), `finetune/${split}.jsonl`)
      : [];
    inSplits.push(...splitRows.map((row) => (row as { instance_id: string }).instance_id));
    if (tuningRows.length !== splitRows.length)
      problems.push(`finetune/${split}.jsonl has ${tuningRows.length} rows for ${splitRows.length} instances`);
  }
  if (inSplits.length !== ids.length || [...inSplits].sort().join('\n') !== [...ids].sort().join('\n'))
    problems.push('the splits are not a partition of the instances');
  return { instances: instances.length, problems };
}

/** What changed between two versions of a dataset, by instance id. */
export function diffDatasets(
  a: string,
  b: string,
): { added: string[]; removed: string[]; changed: Array<{ instance_id: string; fields: string[] }> } {
  const before = new Map(readDataset(a).instances.map((instance) => [instance.instance_id, instance]));
  const after = new Map(readDataset(b).instances.map((instance) => [instance.instance_id, instance]));
  const changed = [...after.values()].flatMap((instance) => {
    const old = before.get(instance.instance_id);
    if (!old) return [];
    // created_at differs in every export: it is not a change to the task.
    const fields = (Object.keys(instance) as Array<keyof Instance>).filter(
      (field) => field !== 'created_at' && JSON.stringify(instance[field]) !== JSON.stringify(old[field]),
    );
    return fields.length > 0 ? [{ instance_id: instance.instance_id, fields }] : [];
  });
  return {
    added: [...after.keys()].filter((id) => !before.has(id)),
    removed: [...before.keys()].filter((id) => !after.has(id)),
    changed,
  };
}
