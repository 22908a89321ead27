import type { Logger } from '../../pipeline/common/logger.js';
import type { Candidate, HistoryFunnel, MutationSettings, Provenance, Site } from '../../pipeline/store/records.js';

/** A bug a generator proposes: its edits to the base commit's files, and where it comes from. */
export interface Proposal {
  provenance: Provenance;
  sites: Site[];
  /** The unit the sampler spreads over (file, qualified name and line of the first site's unit). */
  unitKey: string;
}

/** What a generator may read: the base commit's code, the run's settings, and for the combine stage the kept bugs. */
export interface GeneratorInput {
  workspace: string;
  /** Where the code came from, and whether the workspace is a clone of it (else a copy of its working tree). */
  repository: { location: string; cloned: boolean };
  /** The mutable source files at the base commit (mutate's eligibility), parseable, sorted. */
  sourceFiles: readonly string[];
  testFiles: ReadonlySet<string>;
  /** A file's text at the base commit. */
  read(file: string): string;
  settings: MutationSettings;
  /** How many merged bugs the combine stage makes. */
  combine: number;
  /** The run's seeded random numbers, shared by the generators in registry order. */
  random: () => number;
  log: Logger;
  /** What the generators before this one proposed and the chain admitted. */
  admitted: readonly Proposal[];
  /** The kept candidates (combine stage only). */
  kept: readonly Candidate[];
  /** Funnel steps a generator counts before it proposes anything, saved with the run. */
  report: { history?: HistoryFunnel };
}

/**
 * A bug source. It proposes candidates with their provenance; the shared chain (mutators/chain.ts)
 * does the rest for every generator: parse, no-ops and duplicates, the type checker, sampling, caps.
 */
export interface BugGenerator {
  name: string;
  description: string;
  /** Where it runs: on the clean code before validation, or on the kept bugs after it. */
  stage: 'mutate' | 'combine';
  /** Generators of one budget are sampled together within the caps (multi-site mutants compete with single-site ones). */
  budget: string;
  /** Spread over the units in seeded order, or taken in the order proposed (best first). */
  sampling: 'spread' | 'ranked';
  /** The strategies it can use, each with its family, in the order the funnel lists them. */
  strategies(settings: MutationSettings): Array<{ strategy: string; family: string }>;
  enabled(settings: MutationSettings, combine: number): boolean;
  propose(input: GeneratorInput): AsyncIterable<Proposal> | Iterable<Proposal>;
}

/** The key the sampler groups a unit's candidates by. */
export const unitKeyOf = (file: string, unit: string, line: number): string => `${file}\0${unit}\0${line}`;
