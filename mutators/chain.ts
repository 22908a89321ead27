import { createHash } from 'node:crypto';
import { candidateId, mutatedFiles, patchesOf } from '../pipeline/store/candidates.js';
import type { Candidate, OperatorFunnel, Site } from '../pipeline/store/records.js';
import type { BugGenerator, GeneratorInput, Proposal } from './generators/types.js';
import { parses } from './parse.js';
import { selectRanked, selectSpread, type SamplingCaps } from './sampling.js';
import { TypeCheck } from './type-check.js';

// Digests rather than texts: a large file has thousands of mutants.
const digest = (text: string) => createHash('sha1').update(text).digest('base64');

/** The no-op, duplicate and parse filter of the chain: one bug is one candidate, whichever generator proposed it first. */
export class Screen {
  private readonly seen = new Set<string>();

  constructor(private readonly read: (file: string) => string) {}

  /** The texts the sites make, keyed so that the same bug has the same key; null when they change nothing. */
  private keyOf(sites: readonly Site[]): { key: string; mutated: Map<string, string> } | null {
    const mutated = mutatedFiles(sites, this.read);
    let key = '';
    let changed = false;
    for (const [file, text] of mutated) {
      changed ||= text !== this.read(file);
      key += `${file}\0${digest(text)}\0`;
    }
    return changed ? { key, mutated } : null;
  }

  /** Marks a bug as made already (a candidate of an earlier stage). */
  remember(sites: readonly Site[]): void {
    const made = this.keyOf(sites);
    if (made) this.seen.add(made.key);
  }

  /** True when the sites make a new bug: something changes, nothing made it before, and every changed file still parses. */
  admit(sites: readonly Site[]): boolean {
    const made = this.keyOf(sites);
    if (!made || this.seen.has(made.key)) return false;
    for (const [file, text] of made.mutated) if (!parses(file, text)) return false;
    this.seen.add(made.key);
    return true;
  }
}

export interface ChainOptions {
  caps: SamplingCaps;
  seed: number;
  /** Candidates made before (by an earlier stage): a proposal repeating one is a duplicate. */
  existing: readonly Candidate[];
  /** The workspace's type checker, opened only when a proposal touches a TypeScript file. */
  openTypeCheck: () => TypeCheck | null;
  /** Whether a test executes the bug's places (absent: every bug is taken as reached); sampling takes the unreached last. */
  reached?: (sites: readonly Site[]) => boolean;
}

export interface ChainResult {
  candidates: Candidate[];
  /** Per generator and strategy, from proposals to candidates. */
  funnel: OperatorFunnel[];
  /** Proposals admitted (parse-valid and new), before sampling. */
  admitted: number;
  /** Of those, the ones in code no test executes. */
  unreached: number;
  typeCheck: TypeCheck | null;
}

export function candidateOf({ provenance, sites }: Proposal, read: (file: string) => string): Candidate {
  return {
    id: candidateId(provenance.strategy, sites),
    provenance,
    file: sites[0]!.file,
    unit: sites[0]!.unit,
    sites,
    ...patchesOf(sites, read),
  };
}

/**
 * The shared chain: every enabled generator proposes in registry order; the screen drops no-ops,
 * duplicates and mutants that do not parse; then each budget is sampled within the caps, every
 * candidate in a TypeScript file passing the type checker first.
 */
export async function runChain(
  generators: readonly BugGenerator[],
  input: Omit<GeneratorInput, 'admitted'>,
  { caps, seed, existing, openTypeCheck, reached }: ChainOptions,
): Promise<ChainResult> {
  const screen = new Screen(input.read);
  for (const candidate of existing) screen.remember(candidate.sites);
  const rowKey = (generator: string, strategy: string) => `${generator}\0${strategy}`;
  const rows = new Map<string, OperatorFunnel>();
  const row = (generator: string, strategy: string, family: string) => {
    const key = rowKey(generator, strategy);
    if (!rows.has(key))
      rows.set(key, { generator, operator: strategy, family, sites: 0, parseValid: 0, typeChecked: 0, typeValid: 0, candidates: 0 });
    return rows.get(key)!;
  };
  const admitted: Proposal[] = [];
  for (const generator of generators) {
    for (const { strategy, family } of generator.strategies(input.settings)) row(generator.name, strategy, family);
    for await (const proposal of generator.propose({ ...input, admitted })) {
      const counts = row(generator.name, proposal.provenance.strategy, proposal.provenance.family);
      counts.sites++;
      if (!screen.admit(proposal.sites)) continue;
      counts.parseValid++;
      admitted.push(proposal);
    }
  }

  const typeCheck =
    input.settings.typeCheck && admitted.some((proposal) => TypeCheck.covers(proposal.sites[0]!.file)) ? openTypeCheck() : null;
  const accept = ({ proposal }: { proposal: Proposal }) => {
    const file = proposal.sites[0]!.file;
    if (!typeCheck || !TypeCheck.covers(file)) return true;
    const counts = rows.get(rowKey(proposal.provenance.generator, proposal.provenance.strategy))!;
    counts.typeChecked++;
    const mutated = mutatedFiles(proposal.sites, input.read);
    if ([...mutated].some(([path, text]) => TypeCheck.covers(path) && typeCheck.newError(path, text) !== null)) return false;
    counts.typeValid++;
    return true;
  };
  const isReached = new Map(admitted.map((proposal) => [proposal, reached?.(proposal.sites) ?? true]));
  const picked: Proposal[] = [];
  for (const budget of new Set(generators.map((generator) => generator.budget))) {
    const members = generators.filter((generator) => generator.budget === budget);
    const names = new Set(members.map((generator) => generator.name));
    const items = admitted
      .filter((proposal) => names.has(proposal.provenance.generator))
      .map((proposal) => ({
        operator: proposal.provenance.strategy,
        unitKey: proposal.unitKey,
        reached: isReached.get(proposal)!,
        proposal,
      }));
    const chosen = members[0]!.sampling === 'spread' ? selectSpread(items, caps, seed, accept) : selectRanked(items, caps, accept);
    picked.push(...chosen.map(({ proposal }) => proposal));
  }
  const candidates = picked.map((proposal) => candidateOf(proposal, input.read));
  if (new Set(candidates.map((candidate) => candidate.bugPatch)).size !== candidates.length)
    throw new Error('two candidates have the same diff');
  for (const candidate of candidates) rows.get(rowKey(candidate.provenance.generator, candidate.provenance.strategy))!.candidates++;
  const unreached = [...isReached.values()].filter((value) => !value).length;
  return { candidates, funnel: [...rows.values()], admitted: admitted.length, unreached, typeCheck };
}
