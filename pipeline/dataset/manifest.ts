import { z } from 'zod';
import { DatasetRepo, StatementProvenance } from './instance.js';
import { SelfCheck } from '../store/summaries.js';
import { Curation } from './curation.js';

export const FileEntry = z.object({ sha256: z.string(), bytes: z.number() });

/**
 * manifest.json, as the writer makes it and the reader checks it. Fields added over time are
 * optional, so that a dataset written before them still reads.
 */
export const Manifest = z.object({
  generator: z.object({ name: z.string(), version: z.string() }).passthrough().optional(),
  dataset: z.string(),
  version: z.string(),
  created_at: z.string().optional(),
  split: z.object({ rule: z.enum(['hash', 'repo']), testShare: z.number(), counts: z.record(z.string(), z.number().int()) }).optional(),
  repos: z.array(
    DatasetRepo.extend({
      settings: z.unknown().optional(),
      counts: z.record(z.string(), z.unknown()).optional(),
      statements: StatementProvenance.optional(),
      /** What the export's curation dropped; absent in datasets from before curation. */
      curation: Curation.optional(),
    }),
  ),
  instances: z.number().int().optional(),
  self_check: SelfCheck.optional(),
  yield: z.array(z.object({ operator: z.string(), validated: z.number(), kept: z.number(), yield: z.number() })).optional(),
  /** The export formats written (see formats/index.ts); absent in datasets from before formats were chosen. */
  formats: z.array(z.string()).optional(),
  files: z.record(z.string(), FileEntry),
});
export type Manifest = z.infer<typeof Manifest>;
