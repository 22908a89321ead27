import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { glob } from 'tinyglobby';
import { whyNotMutable } from '../../mutators/eligibility.js';
import { mutantsOf, type Mutant, type SiteTally } from '../../mutators/generate.js';
import { applyEdits } from '../../mutators/edits.js';
import { multiSiteEdits } from '../../mutators/multi-site.js';
import { parseSource } from '../../mutators/parse.js';
import { operatorsNamed } from '../../mutators/registry.js';
import type { StageContext, StageResult } from './context.js';
import { UserError } from '../common/errors.js';
import { git } from '../common/git.js';
import { seededRandom } from '../common/random.js';
import { candidateId, patchesOf } from '../store/candidates.js';
import { OperatorFunnel, type MutationSettings, type Candidate, type Site } from '../store/records.js';
import { selectSpread } from '../../mutators/sampling.js';
import { TypeCheck } from '../../mutators/type-check.js';
import { repositoryGlobs, suitesOf } from '../runners/suites.js';

export const MULTI_SITE = 'multi-site';

/** A mutant of one file before sampling: one site, or several of one unit. */
interface Proposal {
  operator: string;
  family: string;
  unitKey: string;
  sites: Site[];
  originalText: string;
}

/** A mutant as a record: plain data, so the file's syntax tree can go once the file is done. */
function siteOf(mutant: Mutant): Site {
  return {
    file: mutant.file,
    operator: mutant.operator.name,
    unit: mutant.unit.name,
    ...mutant.edit,
    original: mutant.original,
    startLine: mutant.startLine,
    endLine: mutant.endLine,
  };
}

function candidateOf({ sites, ...proposal }: Proposal): Candidate {
  return {
    id: candidateId(proposal.operator, sites),
    operator: proposal.operator,
    family: proposal.family,
    file: sites[0]!.file,
    unit: sites[0]!.unit,
    sites,
    parents: [],
    ...patchesOf(sites, () => proposal.originalText),
  };
}

/**
 * Mutate: every operator over every unit of every mutable source file; optionally multi-site
 * mutants; then a sample spread over units within the caps, each mutant of a TypeScript file
 * passing the type checker first.
 */
export async function mutate(ctx: StageContext): Promise<StageResult> {
  const { store, profile, options, log } = ctx;
  const settings: MutationSettings = { seed: options.seed, ...options.mutation };
  const done = store.stageSummary('mutate');
  if (done) return { stage: 'mutate', alreadyDone: true, ...done };

  const { workspace, testFiles } = ctx.store.environment();
  const operators = operatorsNamed(settings.operators);
  const tests = new Set(testFiles);
  // Only the code of the base commit: what install and build wrote into the workspace is regenerated, never the bug's place.
  const committed = new Set((await git(workspace, ['ls-files', '-z'])).split('\0'));
  const ignore = [...profile.source.exclude, ...suitesOf(profile).flatMap(repositoryGlobs), '**/node_modules/**'];
  const files = (await glob(profile.source.include, { cwd: workspace, ignore }))
    .filter((file) => committed.has(file) && !tests.has(file))
    .sort();
  if (files.length === 0) {
    throw new UserError(
      `no source files in ${profile.name} match ${profile.source.include.join(', ')}`,
      'set "source.include" in the repo profile',
    );
  }

  const bounds = { minComplexity: settings.minComplexity, maxLines: settings.maxUnitLines };
  const tally: SiteTally = new Map();
  const proposals: Proposal[] = [];
  const unparsable: string[] = [];
  const excluded: Record<string, string[]> = {};
  const random = seededRandom(settings.seed);
  for (const file of files) {
    const text = await readFile(join(workspace, file), 'utf8');
    const reason = whyNotMutable(file, text);
    if (reason) {
      (excluded[reason] ??= []).push(file);
      continue;
    }
    let source;
    try {
      source = parseSource(file, text);
    } catch (error) {
      log.warn(`mutate: skipping ${file}: it does not parse (${(error as Error).message})`);
      unparsable.push(file);
      continue;
    }
    const byUnit = new Map<string, Site[]>();
    for (const mutant of mutantsOf(source, operators, { bounds, tally })) {
      const unitKey = `${file}\0${mutant.unit.name}\0${mutant.unit.startLine}`;
      const site = siteOf(mutant);
      byUnit.set(unitKey, [...(byUnit.get(unitKey) ?? []), site]);
      proposals.push({ operator: mutant.operator.name, family: mutant.operator.family, unitKey, sites: [site], originalText: text });
    }
    if (settings.multiSite === 0) continue;
    const multi = tally.get(MULTI_SITE) ?? { sites: 0, parseValid: 0 };
    tally.set(MULTI_SITE, multi);
    for (const [unitKey, unitSites] of byUnit) {
      if (unitSites.length < 2) continue;
      multi.sites++;
      const chosen = multiSiteEdits(file, text, unitSites, settings.multiSite, random);
      if (!chosen) continue;
      multi.parseValid++;
      proposals.push({ operator: MULTI_SITE, family: MULTI_SITE, unitKey, sites: chosen, originalText: text });
    }
  }

  const typeCheck =
    settings.typeCheck && proposals.some((proposal) => TypeCheck.covers(proposal.sites[0]!.file)) ? TypeCheck.open(workspace) : null;
  const checks = new Map<string, { checked: number; valid: number }>();
  const picked = selectSpread(proposals, settings, settings.seed, (proposal) => {
    const file = proposal.sites[0]!.file;
    if (!typeCheck || !TypeCheck.covers(file)) return true;
    const counts = checks.get(proposal.operator) ?? { checked: 0, valid: 0 };
    checks.set(proposal.operator, counts);
    counts.checked++;
    if (typeCheck.newError(file, applyEdits(proposal.originalText, proposal.sites)) !== null) return false;
    counts.valid++;
    return true;
  });
  const candidates = picked.map(candidateOf);
  if (new Set(candidates.map((candidate) => candidate.bugPatch)).size !== candidates.length)
    throw new Error('two candidates have the same diff');

  const families = new Map(proposals.map((proposal) => [proposal.operator, proposal.family]));
  const funnel: OperatorFunnel[] = [...tally].map(([operator, { sites, parseValid }]) => ({
    operator,
    family: families.get(operator) ?? operators.find((each) => each.name === operator)?.family ?? MULTI_SITE,
    sites,
    parseValid,
    typeChecked: checks.get(operator)?.checked ?? 0,
    typeValid: checks.get(operator)?.valid ?? 0,
    candidates: picked.filter((proposal) => proposal.operator === operator).length,
  }));
  const summary = {
    sourceFiles: files.length,
    excluded,
    unparsable,
    mutants: proposals.length,
    candidates: candidates.length,
    typeCheck: typeCheck && {
      checked: typeCheck.checked,
      rejected: typeCheck.rejected,
      setupMs: Math.round(typeCheck.setupMs),
      msPerMutant: typeCheck.checked === 0 ? 0 : Math.round(typeCheck.checkMs / typeCheck.checked),
    },
  };
  store.transaction(() => {
    store.saveCandidates(candidates);
    store.setMeta('mutation', settings);
    store.setMeta('funnel', funnel);
    store.finishStage('mutate', summary);
  });
  const typeNote = typeCheck
    ? `, ${typeCheck.rejected} of ${typeCheck.checked} checked rejected by the type checker (${summary.typeCheck!.msPerMutant} ms each)`
    : '';
  const skipped = Object.values(excluded).flat().length;
  log.info(
    `mutate: ${proposals.length} mutants in ${files.length - unparsable.length - skipped} files${typeNote}; ${candidates.length} candidates for validation`,
  );
  return { stage: 'mutate', alreadyDone: false, ...summary };
}
