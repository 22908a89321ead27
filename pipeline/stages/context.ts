import type { Logger } from '../common/logger.js';
import type { RepoProfile } from '../repo/profile.js';
import type { RunStore } from '../store/run-store.js';

/** What the stages read of the options; they come from one schema (pipeline/cli/options.ts). */
export type { RunOptions } from '../cli/options.js';
import type { RunOptions } from '../cli/options.js';

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
