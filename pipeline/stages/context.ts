import type { Logger } from '../common/logger.js';
import type { RepoProfile } from '../repo/profile.js';
import type { SplitRule } from '../dataset/splits.js';
import type { MutationSettings } from '../store/records.js';
import type { ContainerLimits } from '../sandbox/docker.js';
import type { RunStore } from '../store/run-store.js';

export interface RunOptions {
  concurrency: number;
  seed: number;
  mutation: Omit<MutationSettings, 'seed'>;
  sandbox: 'local' | 'docker';
  /** Keep the test files of FAIL_TO_PASS tests in the task's working tree (they are hidden by default). */
  visibleTests: boolean;
  split: SplitRule;
  testShare: number;
  docker: { baseImage: string; limits: ContainerLimits };
  /** How many merged candidates (kept bugs of one file or module) the combine stage makes. */
  combine: number;
  baselineRuns: number;
  /** Run every candidate against the whole suite, ignoring what coverage says (the slow reference). */
  wholeSuite: boolean;
  /**
   * Only ask whether each candidate is killed (for operator yield surveys): the validate stage
   * runs a kill screen that stops at the first failing test, and the run ends after it.
   */
  killOnly: boolean;
  /** Where validation runs: in this process, or on queue workers through BullMQ on Redis. */
  scheduler: 'in-process' | 'bullmq';
  redis: string | null;
  /** The BullMQ queue's name; coordinator and workers must agree on it. */
  queue: string;
  dataset: string;
  datasetVersion: string | null;
  outDir: string;
  progress: boolean;
}

/** What every stage gets: the run's store, the repository and the options. */
export interface StageContext {
  store: RunStore;
  profile: RepoProfile;
  /** Where the repository's code comes from: a local path or a git URL. */
  location: string;
  runDir: string;
  options: RunOptions;
  log: Logger;
}

export type { StageResult } from '../store/summaries.js';
