import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UserError } from '../common/errors.js';
import { formatsOf } from './formats/index.js';
import { rowsOf } from './formats/jsonl.js';
import { Instance } from './instance.js';
import { Manifest } from './manifest.js';
import { machinePathsIn } from './machine-paths.js';

/** A dataset folder's manifest and instances, with one clear message when either is missing or malformed. */
export function readDataset(dir: string): { manifest: Manifest; instances: Instance[] } {
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
  const instances = rowsOf(readFileSync(instancesPath, 'utf8'), 'instances.jsonl').map((row, index) => {
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
 * hash, none unlisted, no path of the machine that wrote it in any text file, every instance well-formed, and what each format it holds checks of its
 * files (the splits a partition of the instances, a task folder for each, ...). Returns the problems found.
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
  const files = filesUnder(dir).map((path) => ({ name: relative(dir, path), path }));
  for (const { name } of files) if (name !== 'manifest.json' && !(name in manifest.files)) problems.push(`${name} is not in the manifest`);
  const read = files.map(({ name, path }) => ({ name, content: readFileSync(path) }));
  for (const { name, path } of machinePathsIn(read, manifest, instances))
    problems.push(`${name} holds ${path}, a path of the machine that wrote it: the dataset works nowhere else`);
  for (const format of formatsOf(manifest)) problems.push(...format.verify({ dir, manifest, instances }));
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
