import { existsSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { UserError } from '../common/errors.js';

export const CONFIG_FILE = 'swesynth.config.json';

/** Settings a user repeats across runs; flags on the command line override them. */
export const ConfigFile = z
  .object({
    concurrency: z.number().int().positive(),
    seed: z.number().int(),
    operators: z.array(z.string()),
    maxCandidates: z.number().int().min(0),
    maxPerOperator: z.number().int().min(0),
    maxPerUnit: z.number().int().min(0),
    minComplexity: z.number().int().positive(),
    maxUnitLines: z.number().int().positive(),
    multiSite: z.number().min(0).max(1),
    typeCheck: z.boolean(),
    combine: z.number().int().min(0),
    baselineRuns: z.number().int().min(2),
    out: z.string(),
    sandbox: z.enum(['local', 'docker']),
    visibleTests: z.boolean(),
    split: z.enum(['hash', 'repo']),
    testShare: z.number().min(0).max(1),
    baseImage: z.string().min(1),
    dockerMemory: z.string().regex(/^\d+(\.\d+)?[kmg]?$/i),
    dockerCpus: z.number().positive(),
    runsDir: z.string(),
    scheduler: z.enum(['in-process', 'bullmq']),
    redis: z.string().url(),
    queue: z.string().min(1),
  })
  .partial()
  .strict();
export type ConfigFile = z.infer<typeof ConfigFile>;

export const DEFAULTS = {
  concurrency: Math.max(1, availableParallelism()),
  seed: 1,
  baselineRuns: 3,
  // Enough for a dataset of a few hundred tasks from a repository in minutes; 0 lifts a cap.
  maxCandidates: 250,
  maxPerOperator: 0,
  maxPerUnit: 0,
  minComplexity: 1,
  maxUnitLines: 300,
  multiSite: 0,
  typeCheck: true,
  combine: 0,
  sandbox: 'local' as const,
  split: 'hash' as const,
  testShare: 0.2,
  dockerMemory: '2g',
  dockerCpus: 1,
  dockerPids: 1024,
  out: 'out',
  runsDir: '.swesynth/runs',
  scheduler: 'in-process' as const,
  workDir: '.swesynth/worker',
  lockDurationMs: 30_000,
};

/** The config file: the one named, or swesynth.config.json in the working directory if present. */
export function loadConfig(path: string | undefined): ConfigFile {
  const file = path ?? (existsSync(CONFIG_FILE) ? CONFIG_FILE : undefined);
  if (!file) return {};
  if (!existsSync(file)) throw new UserError(`config file ${file} does not exist`, 'check the --config path');
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new UserError(`config file ${file} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (!parsed.success) {
    throw new UserError(`config file ${file} is malformed: ${parsed.error.issues.map((issue) => `${issue.path.join('.') || '(top level)'}: ${issue.message}`).join('; ')}`);
  }
  return parsed.data;
}

/** Bytes in a size such as `512m` or `2g`. */
export function bytesOf(size: string): number {
  const match = /^(\d+(?:\.\d+)?)([kmg]?)$/i.exec(size.trim());
  if (!match) throw new UserError(`"${size}" is not a size`, 'write it like 512m or 2g');
  return Math.round(Number(match[1]) * 1024 ** ' kmg'.indexOf((match[2] || ' ').toLowerCase()));
}
