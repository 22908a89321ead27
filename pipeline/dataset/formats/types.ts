import type { DatasetRepo, Instance } from '../instance.js';
import type { Manifest } from '../manifest.js';
import type { Split } from '../splits.js';

/** A file of the task's repository as the agent finds it: with the bug in. */
export interface ContextFile {
  path: string;
  text: string;
}

/** A repository of the dataset, with the git repository on this machine that holds its base commit. */
export interface FormatRepo extends DatasetRepo {
  /** A git repository (the run's workspace) holding `commit`. */
  gitDir: string;
  /** The longest a test run of the repository may take, as the baseline set it. */
  testTimeoutMs: number;
}

/** What every format writes from: the instances as the dataset holds them, and where they come from. */
export interface FormatInput {
  instances: readonly Instance[];
  bySplit: Readonly<Record<Split, readonly Instance[]>>;
  /** Per instance id, the files the bug is in. */
  context: ReadonlyMap<string, readonly ContextFile[]>;
  repos: ReadonlyMap<string, FormatRepo>;
  /** The container limits of the export, for formats that describe a container. */
  limits: { cpus: number; memoryBytes: number };
  /** Where the user publishes swesynth's images (a registry and namespace), for formats that can start from them; null: none. */
  publishedImages: string | null;
  /** A scratch folder of this export, removed afterwards. */
  workDir: string;
}

/** A dataset folder as verify reads it. */
export interface ReadDatasetFolder {
  dir: string;
  manifest: Manifest;
  instances: readonly Instance[];
}

/** Lines a format adds to the dataset card: its entry in the file list, and front-matter configs for dataset hubs. */
export interface CardSection {
  files: string[];
  configs?: string[];
}

/**
 * One export format: the files it writes, what `dataset verify` checks of them, and its part of
 * the card. Formats are registered in formats/index.ts and chosen with --formats.
 */
export interface ExportFormat {
  name: string;
  /** One line for --help. */
  description: string;
  /** Formats whose output this one builds on; they are written too. */
  requires: readonly string[];
  /** Whether writing it needs a Docker engine (such a format is not written unless asked for). */
  needsDocker: boolean;
  /** Before any file is written: the instances as this format makes them (a format may set their fields). */
  prepare?(input: FormatInput): Promise<Instance[]>;
  files(input: FormatInput): Promise<Record<string, string | Buffer>>;
  /** The problems found in a dataset that holds this format. */
  verify(dataset: ReadDatasetFolder): string[];
  card: CardSection;
}
