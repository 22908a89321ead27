import { z } from 'zod';
import { RepoProfile } from '../repo/profile.js';
import { LlmSettings } from '../statements/llm-writer.js';
import { Difficulty } from './difficulty.js';
import { ReproOutcome } from '../store/records.js';

/** One task as instances.jsonl holds it: SWE-bench's fields, then swesynth's own. */
export const Instance = z.object({
  instance_id: z.string().regex(/^[\w.-]+__[\w.-]+$/),
  repo: z.string(),
  base_commit: z.string(),
  environment_setup_commit: z.string(),
  /** The fix. */
  patch: z.string().min(1),
  /** Brings back the test files the task hides; empty when the tests stay visible. */
  test_patch: z.string(),
  problem_statement: z.string().min(1),
  hints_text: z.string(),
  FAIL_TO_PASS: z.string(),
  PASS_TO_PASS: z.string(),
  created_at: z.string(),
  version: z.string(),
  image_name: z.string().nullable(),
  bug_patch: z.string().min(1),
  /** Where the bug comes from; the agent's task folder never holds it. */
  mutation: z.object({
    /** The bug source (operators, multi-site, history, combined); absent in datasets from before sources were named. */
    generator: z.string().optional(),
    /** The strategy: the operator's name, `multi-site`, `combined`, or `revert` for a commit of the repository's history. */
    operator: z.string(),
    family: z.string(),
    file: z.string(),
    function: z.string(),
    sites: z.array(
      z.object({
        file: z.string(),
        function: z.string(),
        operator: z.string(),
        lines: z.object({ start: z.number(), end: z.number() }),
        original: z.string(),
        replacement: z.string(),
      }),
    ),
    combines: z.array(z.string()).optional(),
    /** The commit a history task reverts, to trace it and to drop tasks newer than a model's training cutoff. */
    commit: z.object({ hash: z.string(), date: z.string(), subject: z.string() }).optional(),
  }),
  title: z.string(),
  runner: z.string(),
  /**
   * Who wrote problem_statement: `template:<style>` or `llm:<model>`, the language model asked (if one
   * was), and why its text was not used when the template wrote it. Absent in datasets from before.
   */
  statement: z
    .object({
      writer: z.string(),
      llm: LlmSettings.nullable(),
      llm_fallback: z.string().optional(),
      /** Whether the statement's repro ran on the buggy and the fixed code (ReproOutcome's status); absent in datasets from before. */
      repro: ReproOutcome.shape.status.optional(),
      /** How an executed repro runs: `script` with Node alone, or `test-file`, a test for the repository's own suite. */
      repro_form: ReproOutcome.shape.form,
    })
    .optional(),
  /** How hard the task is, measured from execution (see difficulty.ts); absent in datasets from before. */
  difficulty: Difficulty.optional(),
});
export type Instance = z.infer<typeof Instance>;

export const testIdsOf = (field: string): string[] => z.array(z.string()).parse(JSON.parse(field));

/** A repository a dataset draws from: enough to rebuild its environment and to grade its tasks. */
export const DatasetRepo = z.object({
  name: z.string(),
  /** The repository's public remote (https, no credentials); null when it has none, and never a path of the machine that made the dataset. */
  url: z.string().nullable(),
  /** Why `url` is null, and where the code is instead. */
  url_note: z.string().optional(),
  commit: z.string(),
  image: z.string().nullable(),
  profile: RepoProfile,
  /** Tests set aside at setup as too slow (by file and title path): grading leaves them out, as validation did. */
  setAside: z.array(z.object({ file: z.string(), titlePath: z.array(z.string()) })).default([]),
});
export type DatasetRepo = z.infer<typeof DatasetRepo>;

/** How a dataset's statements were written, per repository: counts per writer, and the models asked. */
export const StatementProvenance = z.object({
  writers: z.record(z.string(), z.number().int()),
  llm: z.array(LlmSettings),
  /** Statements per repro status (`executed`, `cut`, ...); absent in datasets from before repros ran. */
  repros: z.record(z.string(), z.number().int()).optional(),
  /** Of the executed repros, those that are a test for the repository's own suite rather than a script. */
  reproTestFiles: z.number().int().optional(),
});
export type StatementProvenance = z.infer<typeof StatementProvenance>;
